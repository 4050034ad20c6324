// `tokenflood trace stats FILE`: the shape of a trace before it is replayed (requests, sessions, lengths, arrivals, subagents, cache ceiling);
// `tokenflood trace synth`: a synthetic agentic trace (Weka shape) for users who have none.
import { Command, Option } from 'commander';
import { UsageError } from '../errors.js';
import { loadTrace, TRACE_FORMATS } from '../dataset/trace/registry.js';
import { traceStats, type TraceStats } from '../dataset/trace/stats.js';
import { parseBuckets, DEFAULT_BUCKETS } from '../dataset/stats.js';
import type { DistStats } from '../metrics/stats.js';
import { pct, table } from '../report/format.js';
import type { Out } from './io.js';
import { registerTraceSynth } from './trace-synth.js';

interface TraceStatsOptions {
  replayFormat: string;
  traceBlockSize?: string;
  /** The old name of --trace-block-size, still accepted (hidden). */
  blockSize?: string;
  buckets: string;
  json?: boolean;
  skipBadLines?: boolean;
}

/** Rows of the per-turn ceiling shown in the terminal; --json has them all. */
const TURN_ROWS = 12;

const whole = (x: number | null | undefined): string => (x === null || x === undefined || !Number.isFinite(x) ? '-' : String(Math.round(x)));
const one = (x: number | null | undefined): string => (x === null || x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(1));
const dist = (name: string, d: DistStats): string[] => [name, String(d.count), one(d.mean), whole(d.p50), whole(d.p90), whole(d.p99), whole(d.min), whole(d.max)];
const ratio = (x: number | null): string => (x === null ? '-' : pct(x));

export function renderTraceStats(file: string, s: TraceStats): string {
  const out = [
    `${file}: ${s.format}${s.detected ? ` (auto: ${s.detected})` : ''}${s.block_size !== undefined ? `, ${s.block_size}-token blocks` : ''}`,
    `${s.requests} requests: ${s.sessions} sessions, ${s.standalone_requests} stand-alone`,
  ];
  if (s.sessions) {
    const t = s.turns_per_session;
    out.push(`turns per session: mean ${one(t.mean)}, p50 ${whole(t.p50)}, p90 ${whole(t.p90)}, max ${whole(t.max)}`);
  }
  out.push('', table(['tokens', 'count', 'mean', 'p50', 'p90', 'p99', 'min', 'max'], [dist('input', s.input_tokens), dist('output', s.output_tokens)]));
  out.push('', table(['bucket', 'inputs', 'share', 'outputs', 'share'], s.input_tokens.histogram.map((b, i) => [b.bucket, String(b.count), pct(b.share), String(s.output_tokens.histogram[i].count), pct(s.output_tokens.histogram[i].share)])));
  const a = s.arrival;
  out.push('', `arrivals: ${a.timed} timed requests over ${a.span_s.toFixed(1)} s${a.mean_rate_per_s !== null ? `, ${a.mean_rate_per_s.toFixed(2)} req/s on average` : ''}`);
  if (a.windows.length > 1) out.push(table(['window (s)', 'requests', 'req/s'], a.windows.map((w) => [`${w.start_s.toFixed(0)}-${w.end_s.toFixed(0)}`, String(w.requests), w.rate_per_s.toFixed(2)])));
  if (s.think_time_ms.count || s.tool_time_ms.count) {
    out.push('', table(['ms', 'count', 'mean', 'p50', 'p90', 'p99', 'min', 'max'], [...(s.think_time_ms.count ? [dist('think time', s.think_time_ms)] : []), ...(s.tool_time_ms.count ? [dist('tool time', s.tool_time_ms)] : [])]));
  }
  const sub = s.subagents;
  if (sub.count || sub.dropped_no_parent_turn)
    out.push('', `subagents: ${sub.count} (${sub.requests} requests, ${sub.background} in the background), fan-out per spawning turn: mean ${one(sub.fan_out.mean)}, max ${whole(sub.fan_out.max)}${sub.dropped_no_parent_turn ? `; ${sub.dropped_no_parent_turn} dropped (no parent turn before them)` : ''}`);
  const c = s.cache_ceiling;
  if (c) {
    out.push('', `cache ceiling (unlimited prefix cache, ${c.block_size}-token blocks, arrival order): ${c.cached_tokens} of ${c.prompt_tokens} prompt tokens (${ratio(c.ratio)})${c.without_hash_ids ? `; ${c.without_hash_ids} requests without hash_ids left out` : ''}`);
    if (c.by_turn.length > 1) {
      const rows = c.by_turn.slice(0, TURN_ROWS).map((t) => [String(t.turn), String(t.requests), String(t.prompt_tokens), String(t.cached_tokens), ratio(t.ratio)]);
      out.push(table(['turn', 'requests', 'prompt tokens', 'cached', 'ceiling'], rows));
      if (c.by_turn.length > TURN_ROWS) out.push(`... ${c.by_turn.length - TURN_ROWS} more turns (--json lists them all)`);
    }
  } else out.push('', 'cache ceiling: the trace has no hash_ids');
  if (s.warnings.length) out.push('', ...s.warnings.map((w) => `warning: ${w}`));
  return out.join('\n');
}

export function registerTrace(program: Command, out: Out): void {
  const trace = program.command('trace').description('inspect production and agentic traces before replaying them');
  const stats = trace
    .command('stats <file>')
    .description('requests, sessions, turns, length histograms, arrival rate over time, subagent fan-out and the cache ceiling of a trace')
    .addOption(new Option('--replay-format <format>', `trace format; one of ${TRACE_FORMATS.join(', ')}`).choices([...TRACE_FORMATS]).default('auto'))
    .option('--trace-block-size <n>', 'tokens per hash id; unset, the format\'s own: 512 for mooncake, 16 for bailian, the file\'s block_size (64) for weka, 64 for tracelab')
    .addOption(new Option('--block-size <n>', 'old name of --trace-block-size').hideHelp())
    .option('--buckets <edges>', 'histogram bucket edges, k = 1024', DEFAULT_BUCKETS)
    .option('--json', 'print the statistics as one JSON document')
    .option('--skip-bad-lines', 'skip bad records (counted, the first five named) instead of failing');
  stats.action((file: string) => {
    const o = stats.opts() as TraceStatsOptions;
    const problems: string[] = [];
    let edges: number[] = [];
    try {
      edges = parseBuckets(o.buckets);
    } catch (e) {
      problems.push(`--buckets: ${(e as Error).message}`);
    }
    const [flag, given] = o.traceBlockSize !== undefined ? ['--trace-block-size', o.traceBlockSize] : ['--block-size', o.blockSize];
    const blockSize = given !== undefined ? Number(given) : undefined;
    if (blockSize !== undefined && !(Number.isInteger(blockSize) && blockSize > 0)) problems.push(`${flag}: expected a positive integer, got "${given}"`);
    if (problems.length) throw new UsageError(problems);
    const t = loadTrace(file, o.replayFormat, { blockSize, skipBadLines: o.skipBadLines });
    const s = traceStats(t.requests, t.summary, edges);
    if (o.json) out.out.write(JSON.stringify({ file, ...s }, null, 2) + '\n');
    else out.out.write(renderTraceStats(file, s) + '\n');
  });
  registerTraceSynth(trace, out);
}
