// Live outputs of a run or sweep for external tools: the --metrics-port server and the --out remote writers, on one registry.
import { createRunMetrics } from './prom-metrics.js';
import { startMetricsServer, type MetricsServer } from './metrics-server.js';
import { startRemoteWrite, type RemoteWriter } from './remote-write.js';
import { isLoopbackHost, shownOutputUrl, type OutputSpec } from '../../config/live-metrics.js';
import type { Reporter } from '../events.js';

export interface LiveOutputConfig {
  metricsPort?: number;
  metricsHost: string;
  metricsLinger: number;
  outInterval: number;
  outputs: readonly OutputSpec[];
}

export interface LiveOutputs {
  /** The reporter of a run (or of a sweep point, labelled `point`). */
  reporter(point?: string): Reporter;
  /** http://HOST:PORT/metrics, when --metrics-port was given. */
  readonly metricsUrl: string | undefined;
  /** Mark the figures final, push them a last time, keep serving --metrics-linger (cut short by `signal`), then close. */
  close(signal?: AbortSignal): Promise<void>;
}

/** Start what `c` asks for; `notice` prints one line (stderr). A port that cannot be bound throws a UsageError before anything is sent. */
export async function startLiveOutputs(c: LiveOutputConfig, o: { run?: string; sweep?: boolean; notice: (line: string) => void }): Promise<LiveOutputs> {
  const metrics = createRunMetrics(o.run, { sweep: o.sweep });
  let server: MetricsServer | undefined;
  if (c.metricsPort !== undefined) {
    server = await startMetricsServer(metrics.registry, c.metricsPort, c.metricsHost);
    if (!isLoopbackHost(c.metricsHost)) o.notice(`WARNING: --metrics-host ${c.metricsHost}: the metrics are reachable from other machines, without authentication`);
    o.notice(`metrics at ${server.url}`);
  }
  const writers: RemoteWriter[] = c.outputs.map((out) => {
    o.notice(`pushing metrics to ${shownOutputUrl(out.url)} every ${c.outInterval} s (${out.kind})`);
    return startRemoteWrite(metrics.registry, { url: out.url, intervalMs: c.outInterval * 1000, warn: o.notice });
  });
  return {
    reporter: metrics.reporter,
    metricsUrl: server?.url,
    close: async (signal) => {
      metrics.finish();
      await Promise.all(writers.map((w) => w.close()));
      if (server && c.metricsLinger > 0 && !signal?.aborted) {
        o.notice(`final metrics stay at ${server.url} for ${c.metricsLinger} s (--metrics-linger)`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(done, c.metricsLinger * 1000);
          function done() {
            clearTimeout(t);
            signal?.removeEventListener('abort', done);
            resolve();
          }
          signal?.addEventListener('abort', done, { once: true });
        });
      }
      await server?.close();
    },
  };
}
