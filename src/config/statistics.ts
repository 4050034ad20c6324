// Issue 29's run options: time slices, steady state and over-saturation, repeated runs, cancellation and
// user-centric rate. One schema and flag set, part of RunConfigSchema (and so passed through by sweep).
import { z } from 'zod';
import { flagTable } from '../util/flags.js';
import { parseDurationS } from '../util/parse.js';
import { MAX_TIMER_MESSAGE, MAX_TIMER_S } from '../util/timer.js';

const positiveDuration = z.preprocess(
  (v) => (v === undefined ? undefined : parseDurationS(v)),
  z.number({ message: 'expected a duration such as 10s, 500ms or a number of seconds' }).positive().max(MAX_TIMER_S, MAX_TIMER_MESSAGE).optional(),
);
const durationOrZero = z.preprocess(
  (v) => (v === undefined ? undefined : parseDurationS(v)),
  z.number({ message: 'expected a duration such as 10s, 500ms, 0 or a number of seconds' }).min(0).max(MAX_TIMER_S, MAX_TIMER_MESSAGE).optional(),
);
const percentOrFraction = z.preprocess(
  (v) => (typeof v === 'string' && v.trim().endsWith('%') ? Number(v.trim().slice(0, -1)) / 100 : v),
  z.coerce.number({ message: 'expected a fraction such as 0.1 or a percentage such as 10%' }).min(0).max(1).optional(),
);

/** Exit code of a run stopped by --stop-on-saturation (docs/commands/run.md#exit-codes). */
export const EXIT_SATURATED = 3;

export const StatisticsSchema = z.object({
  /** Seconds per time slice (summary.slices); undefined = no per-slice figures in the summary. */
  slice: positiveDuration,
  stopOnSaturation: z.boolean().default(false),
  runs: z.coerce.number().int().min(1).max(100, { message: 'at most 100 runs' }).default(1),
  /** Seconds between repeated runs (--runs). */
  cooldown: durationOrZero.default(5),
  /** Cancel each request this many seconds after it was sent (status cancelled). */
  cancelAfter: positiveDuration,
  /** Share of requests cancelled (with --cancel-after: after that delay; else at a uniform random point of its expected life). */
  cancelRate: percentOrFraction,
  /** User-centric rate: N simulated users, each sending at --user-rate with think time (AIPerf's definition). */
  users: z.coerce.number().int().positive().max(100_000, { message: 'at most 100,000 users' }).optional(),
  /** Requests per second per user (--users). */
  userRate: z.coerce.number().positive().optional(),
});

export const STATISTICS_FLAGS = flagTable(StatisticsSchema.shape, {
  slice: { arg: 'time', help: 'cut the run into time slices of this length, e.g. 10s: per-slice throughput, latency and in-flight figures in summary.json and the report (docs/metrics.md#time-slices)', defaultText: 'none' },
  stopOnSaturation: { help: 'stop the run early, with exit code 3, when the slice series shows over-saturation: in-flight requests or TTFT growing without bound (docs/metrics.md#over-saturation)' },
  runs: { help: 'repeat the run N times with --cooldown between them: each run in DIR/run-K/, the aggregate (mean, sd, CV, t-interval per metric) in DIR/runs.json (docs/metrics.md#repeated-runs)' },
  cooldown: { arg: 'time', help: 'with --runs: pause between runs, e.g. 10s', unit: 's' },
  cancelAfter: { arg: 'time', help: 'cancel measured requests this long after they were sent, e.g. 2s: the connection is closed and the record is cancelled, code E_CANCELLED_BY_CLIENT, with the tokens received so far (with --cancel-rate only that share of them; docs/metrics.md#request-cancellation)' },
  cancelRate: { arg: 'fraction', help: 'cancel this share of measured requests, e.g. 10% or 0.1, chosen by --dataset-seed: after --cancel-after, or without it at a uniform point of the expected life (the mean E2E of ok requests so far)' },
  users: { help: 'user-centric load (AIPerf): N users, starts staggered over one gap, each sending its next request 1/--user-rate after its previous one was due (or when it ended, if later); not with --rate, --concurrency, --stages or --ramp-up (docs/metrics.md#user-centric-rate)' },
  userRate: { arg: 'r', help: 'with --users: requests per second of each user (the aggregate target is users × rate)' },
});
