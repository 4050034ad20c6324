// Config keys and flags of GPU and host telemetry (--gpu-metrics, --server-pid), extended into the run config.
import { z } from 'zod';
import { flagTable } from '../../util/flags.js';
import { parsedString } from '../../util/parsed-string.js';
import { parseGpuMetricsSpec } from './create.js';

export const GpuTelemetrySchema = z.object({
  // The message already names the flag: keep only what follows "--gpu-metrics VALUE: ".
  gpuMetrics: parsedString(parseGpuMetricsSpec, (t) => t.replace(/^--gpu-metrics \S+: /, '')),
  serverPid: z.coerce.number({ message: 'expected a process id' }).int('expected a whole number').positive('expected a process id').optional(),
});

export const GPU_TELEMETRY_FLAGS = flagTable(GpuTelemetrySchema.shape, {
  gpuMetrics: { arg: 'dcgm:URL|nvidia-smi', help: "GPU telemetry next to the run: a DCGM exporter's /metrics (dcgm:http://gpu-host:9400/metrics), or nvidia-smi run here in its CSV query mode (docs/gpu-telemetry.md)" },
  serverPid: { arg: 'pid', help: 'also sample CPU and memory of this local process (the inference server), next to the client host metrics' },
});
