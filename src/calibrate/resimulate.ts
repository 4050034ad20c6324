// Re-simulate a measured run on the virtual driver, the engine model on a virtual clock that `tokenflood simulate` predicts with.
import { RunConfigSchema, type RunConfig } from '../config/schema.js';
import type { Tokenizer } from '../dataset/tokenizer.js';
import type { RequestSpec } from '../dataset/types.js';
import { createVirtualDriver } from '../drivers/virtual.js';
import type { Driver } from '../drivers/driver.js';
import { toRecord } from '../metrics/derive.js';
import { normalizeRaw } from '../metrics/jsonl.js';
import type { RequestRecord } from '../metrics/record.js';
import { arrivalSchedule, type ArrivalKind } from '../scheduler/arrivals.js';
import type { EngineSpec } from '../sim/engine/config.js';
import { createRng } from '../util/rng.js';

/** One request of the re-simulation: its lengths and the prompt tokens the server reported already cached. */
export interface ResimRequest {
  promptTokens: number;
  outputTokens: number;
  /** The first `cachedTokens` prompt tokens are shared (a prefix cache holds them), the rest are this request's own. */
  cachedTokens: number;
  warmup: boolean;
}

/** When the requests go out, as trace.ts read them from the run (simulateRun's VirtualLoad, less the request count). */
export interface ResimLoad {
  concurrency?: number;
  rate?: number;
  arrival?: ArrivalKind;
  burstiness?: number;
  /** Closed loop: when each request of the first wave is sent (ms); default all at 0. */
  startMs?: readonly number[];
  /** Closed loop: client time between the k-th request end (or failure) and the send that refills its slot (ms). */
  refillGapMs?: (k: number) => number;
  /** Open loop: the arrival times (ms) instead of drawing them from rate, arrival and burstiness. */
  arrivalsMs?: readonly number[];
}

/**
 * One token per character: the re-simulation gives the driver token counts, not texts. A system prompt of n
 * characters is n shared tokens; the driver fills the rest of each prompt with ids unique to the request
 * (drivers/virtual-records.ts, a cache-busted synthetic chat prompt), so only the cached prefix is shared.
 */
const CHARS: Tokenizer = {
  name: 'calibrate:chars',
  encode: (s) => Array.from(s, (ch) => ch.codePointAt(0)!),
  decode: (ids) => String.fromCodePoint(...ids),
  count: (s) => [...s].length,
};

/** Streamed chat with ignore_eos and cache-busted synthetic prompts: each request yields exactly its output length. */
let config: RunConfig | undefined;
const runConfig = (): RunConfig => (config ??= RunConfigSchema.parse({ endpoint: 'chat', stream: true, ignoreEos: true, cacheBust: true }));

const specOf = (promptTokens: number, maxTokens: number, cached: number): RequestSpec => ({
  messages: cached > 0 ? [{ role: 'system', content: 'x'.repeat(cached) }] : [],
  prompt: '',
  inputTokens: promptTokens,
  maxTokens,
});

/**
 * The requests through the virtual driver on `engine`, each sent when the plan says: a closed loop's first wave at
 * `startMs` and each refill `refillGapMs` after a slot frees, or an open loop's arrivals (at most `concurrency` in
 * flight). A prefix cache holding the largest cached prefix is warmed first, before time 0. Returns the records a
 * simulated run would keep (times from the run's start), in send order.
 */
export async function resimulate(engine: EngineSpec, requests: readonly ResimRequest[], load: ResimLoad): Promise<RequestRecord[]> {
  const c = runConfig();
  const driver = createVirtualDriver(c, CHARS, { engine, model: engine.model.id, tokensPerChunk: 1, reasoningShare: 0, keepText: false, engineMeta: {}, ignored: [] });
  const records: RequestRecord[] = [];
  await driver.open();
  await driver.start();
  await driver.drive(async () => {
    const maxCached = Math.max(0, ...requests.map((r) => r.cachedTokens));
    // The hits the server reported: a prefix cache holding them before the run (an earlier run, a shared prefix).
    if (maxCached > 0) await send(driver, c, -1, specOf(maxCached + engine.blockSize, 1, maxCached), true, 0);
    const t0 = driver.clock.now();
    const at = (t: number) => driver.clock.sleepUntil(t0 + Math.max(0, t));
    const keep = (r: RequestRecord) => records.push({ ...r, scheduled_at_ms: r.scheduled_at_ms - t0, sent_at_ms: r.sent_at_ms - t0 });
    const go = (i: number, scheduledMs: number) => {
      const r = requests[i];
      return send(driver, c, i, specOf(r.promptTokens, r.outputTokens, r.cachedTokens), r.warmup, t0 + scheduledMs).then(keep);
    };
    let next = 0;
    const n = requests.length;
    const cap = load.concurrency ?? Infinity;
    if (load.rate === undefined && load.arrivalsMs === undefined) {
      // Closed loop: each slot sends, waits for the answer and the client's gap, and sends the next request.
      let refills = 0;
      const first = Array.from({ length: Math.min(n, cap) }, (_, k) => Math.max(0, load.startMs?.[k] ?? 0)).sort((a, b) => a - b);
      await Promise.all(
        first.map(async (start) => {
          await at(start);
          while (next < n) {
            await go(next++, driver.clock.now() - t0);
            const gap = Math.max(0, load.refillGapMs?.(refills++) ?? 0);
            if (gap > 0 && next < n) await at(driver.clock.now() - t0 + gap);
          }
        }),
      );
      return;
    }
    // Open loop: each request at its arrival, or when a slot frees if `concurrency` are in flight.
    let arrivals = load.arrivalsMs ? [...load.arrivalsMs].sort((a, b) => a - b) : undefined;
    if (!arrivals) {
      const rng = createRng(1);
      rng.fork(); // the stream simulateRun's output lengths took: the arrivals it drew for seed 1
      arrivals = arrivalSchedule(load.arrival ?? 'poisson', load.rate!, load.burstiness ?? 1, rng, { count: n });
    }
    let inFlight = 0;
    const freed: (() => void)[] = [];
    const sent: Promise<void>[] = [];
    while (next < n) {
      const i = next++;
      await at(arrivals[i]);
      while (inFlight >= cap) await new Promise<void>((resolve) => freed.push(resolve));
      inFlight++;
      sent.push(go(i, arrivals[i]).then(() => (inFlight--, freed.shift()?.())));
    }
    await Promise.all(sent);
  });
  await driver.close();
  return records.sort((a, b) => a.sent_at_ms - b.sent_at_ms || a.id - b.id);
}

async function send(driver: Driver, c: RunConfig, id: number, spec: RequestSpec, warmup: boolean, scheduledAtMs: number): Promise<RequestRecord> {
  const res = await driver.execute(
    { id, attempt: 1, warmup, cls: undefined, body: '', stream: c.stream, expectedInputTokens: spec.inputTokens, maxTokens: spec.maxTokens, scheduledAtMs, timeoutMs: 0 },
    spec,
  );
  return toRecord(normalizeRaw(res.raw));
}
