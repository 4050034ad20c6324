// The first pass of an open-loop trace replay: only the send times, into a typed array (8 bytes a request), so memory
// does not grow with the trace's prompts; the requests themselves are streamed again when sent.
import type { TraceRequest } from '../model.js';

export interface Arrivals {
  /** Send times (ms from the first kept request, already divided by --replay-speed), one per kept request. */
  times: Float64Array;
  /** Requests recorded before their predecessor: sent right after it (the schedule never goes back in time). */
  reordered: number;
  /** Requests left out by `keep` (input + max_tokens over --max-model-len, or over --max-input-tokens / --max-output-tokens). */
  skipped: number;
  /** Stand-alone replay of a trace whose later requests carry a session id (its first has none). */
  withSession: number;
}

export interface ArrivalOptions {
  speed: number;
  /** Stop after this many kept requests (--requests N plus --warmup); undefined reads the whole trace. */
  limit?: number;
  /** Whether a request is replayed (the second pass applies the same test, so both passes see the same requests). */
  keep: (r: TraceRequest) => boolean;
}

/**
 * Read `requests` (file order) once for their times. A request with no recorded time (a Mooncake turn given only its
 * delay) keeps its predecessor's; one recorded earlier than its predecessor goes right after it.
 */
export function readArrivals(requests: Iterable<TraceRequest>, o: ArrivalOptions): Arrivals {
  let times = new Float64Array(1024);
  let n = 0;
  let t0: number | undefined;
  let last = -Infinity;
  let reordered = 0;
  let skipped = 0;
  let withSession = 0;
  if (o.limit === 0) return { times: new Float64Array(0), reordered, skipped, withSession };
  for (const r of requests) {
    if (!o.keep(r)) {
      skipped++;
      continue;
    }
    if (r.session !== undefined) withSession++;
    let at = r.atMs ?? (Number.isFinite(last) ? last : 0);
    if (at < last) {
      reordered++;
      at = last;
    }
    last = at;
    t0 ??= at;
    if (n === times.length) {
      const grown = new Float64Array(times.length * 2);
      grown.set(times);
      times = grown;
    }
    times[n++] = (at - t0) / o.speed;
    if (o.limit !== undefined && n >= o.limit) break;
  }
  return { times: times.slice(0, n), reordered, skipped, withSession };
}

/**
 * The schedule for `want` requests over a trace of `base.length`: the trace's own times, then (when more are asked for
 * than it holds) the trace again, each pass starting one mean gap after the previous one's last send.
 */
export function passTimes(base: Float64Array, want: number): { times: Float64Array; passes: number } {
  const n = base.length;
  if (want <= n || n === 0) return { times: want < n ? base.subarray(0, want) : base, passes: n ? 1 : 0 };
  const span = base[n - 1];
  const period = span + (n > 1 ? span / (n - 1) : 0);
  const times = new Float64Array(want);
  for (let i = 0; i < want; i++) times[i] = Math.floor(i / n) * period + base[i % n];
  return { times, passes: Math.ceil(want / n) };
}
