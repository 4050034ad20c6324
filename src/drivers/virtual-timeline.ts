// The virtual driver's server timeline: the engine model's /metrics page, as the sim server renders it, sampled every
// scrape interval of virtual time and written to server_metrics.jsonl as a real scrape's line. Simulated, not measured.
import { parsePromText } from '../telemetry/prom-text.js';
import { normalizeScrape, type ServerSample } from '../telemetry/normalize.js';
import { SampleWriter, SERVER_METRICS_JSONL } from '../telemetry/sample-writer.js';
import type { SourceContext, SourceResult, TimelineSource } from '../telemetry/source.js';
import type { SimMetrics } from '../sim/http/metrics.js';
import type { VirtualClock } from './virtual-clock.js';

export const SIMULATED_METRICS_URL = 'engine model (simulated)';

/** run.json `server_metrics` and `server_identity` have a real run's fields; `url` says the samples are the engine model's. */
export function virtualServerSource(clock: VirtualClock, metrics: SimMetrics, intervalMs: number, maxModelLen: number): TimelineSource {
  let ctx: SourceContext | undefined;
  let writer: SampleWriter | undefined;
  let nextDue = intervalMs;
  let stopped = false;
  let unlisten: (() => void) | undefined;
  let engine: ServerSample['engine'] | null = null;
  let rejected = 0;

  const sample = async (tMs: number): Promise<void> => {
    const s = normalizeScrape(tMs, parsePromText(await metrics.text()), engine);
    s.t_ms = Math.round(tMs * 1000) / 1000;
    engine ??= s.engine;
    rejected += s.rejected?.count ?? 0;
    (writer ??= new SampleWriter(ctx!.outDir)).write(s);
    ctx!.onSample?.({ source: 'server', tMs, line: s as unknown as Record<string, unknown> });
  };
  // The engine's state only changes at events: every interval boundary before the next event sees the state after this one.
  const advance = (from: number, to: number): Promise<void> | undefined => {
    if (stopped || nextDue >= to) return undefined;
    return (async () => {
      while (nextDue < to) {
        await sample(Math.max(from, nextDue));
        nextDue += intervalMs;
      }
    })();
  };

  return {
    name: 'server-metrics',
    async start(c) {
      ctx = c;
      await sample(clock.now());
      nextDue = clock.now() + intervalMs;
      unlisten = clock.onAdvance(advance);
    },
    async stop(): Promise<SourceResult> {
      if (ctx && !stopped) {
        stopped = true;
        unlisten?.();
        await sample(clock.now()); // one last sample after the last answer, as the real scraper takes
      }
      stopped = true;
      await writer?.close();
      const samples = writer?.written ?? 0;
      const found = samples > 0;
      const meta: Record<string, unknown> = {
        server_metrics: { url: SIMULATED_METRICS_URL, found, engine, samples, failed_scrapes: 0, interval_ms: intervalMs, max_bytes: null, rejected_values: rejected, parsed_in: 'in-thread', ...(writer?.failure ? { write_error: writer.failure } : {}) },
        ...(found ? { server_identity: { engine, max_model_len: maxModelLen } } : {}),
      };
      return { meta, files: samples > 0 && !writer?.failure ? [SERVER_METRICS_JSONL] : [] };
    },
  };
}
