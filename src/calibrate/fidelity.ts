// Fidelity harness: runs the published calibration points (data/fidelity/points.json) through `simulate` and scores them.
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simulate } from '../simulate.js';
import type { DistStats } from '../metrics/stats.js';
import type { RawRequest } from '../metrics/record.js';
import { maxOf, minOf } from '../util/min-max.js';
import { packagePath } from '../package-root.js';

export type FidelityMetric = 'ttft_mean_ms' | 'tpot_mean_ms' | 'ttft_p50_ms' | 'tpot_p50_ms' | 'output_tok_s' | 'output_tok_s_run' | 'throughput_gain';

export interface FidelityPoint {
  id: string;
  /** Deployment family the wide set reports medians for (dense-bf16, moe-bf16, moe-fp8, fp4, amd). */
  family?: string;
  source: string;
  setup: string;
  /** `tokenflood simulate` options (camelCase flag names), one run per stage. */
  runs: Record<string, unknown>[];
  /** `runs`: which runs the metric reads (default all, request-weighted; the gain reads [base, loaded]). */
  published: { metric: FidelityMetric; value: number; runs?: number[]; scored?: boolean; note?: string }[];
}

export interface FidelityRow {
  id: string;
  family?: string;
  metric: FidelityMetric;
  published: number;
  simulated: number;
  /** (simulated − published) / published */
  error: number;
  /** false: shown, left out of the medians (the point's note says why). */
  scored: boolean;
}

export interface FidelityReport {
  rows: FidelityRow[];
  /** Median |error| of each metric family: ttft (mean and p50), tpot, throughput (tok/s and gains). */
  medianAbsError: { ttft: number; tpot: number; throughput: number };
  maxAbsTtftError: number;
  /** The same medians per point family (points without a family are left out). */
  byFamily: Record<string, { ttft: number; tpot: number; throughput: number }>;
}

/** The earlier held-out set (points.json, vLLM on H100/A100, dense BF16 and Mixtral) or the wide set (wide.json, issue 31). */
export function loadFidelityPoints(set: 'points' | 'wide' = 'points'): FidelityPoint[] {
  const file = packagePath('data', 'fidelity', `${set}.json`);
  return (JSON.parse(readFileSync(file, 'utf8')) as { points: FidelityPoint[] }).points;
}

interface RunFacts {
  requests: number;
  /** Output tokens / run duration (what vllm bench serve, sglang.bench_serving and trtllm-bench report). */
  outputTokSRun: number;
  ttft: DistStats;
  tpot: DistStats;
  outputTokS: number;
}

const family = (m: FidelityMetric): keyof FidelityReport['medianAbsError'] =>
  m.startsWith('ttft') ? 'ttft' : m.startsWith('tpot') ? 'tpot' : 'throughput';

export function median(xs: number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const h = s.length >> 1;
  return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2;
}

/** Token-carrying SSE event kinds (reasoning and answer). */
const TOKEN_KINDS = new Set(['a', 'r', 'R']);

/**
 * Steady-state output tokens/s: tokens that arrived in the middle 80% of the send window, per second of it. A long
 * stage (as published) is nearly all steady state; this keeps a shorter run's ramp-up and drain out of the figure,
 * and still shows a server that falls behind (fewer tokens arrive than are asked for).
 */
export function steadyOutputTokS(records: Iterable<RawRequest>): number {
  const recs = [...records];
  const sends = recs.map((r) => r.sent_at_ms);
  const first = minOf(sends);
  const span = maxOf(sends) - first;
  const a = first + 0.1 * span;
  const b = first + 0.9 * span;
  if (!(b > a)) return NaN;
  let tokens = 0;
  for (const r of recs) {
    const idx = [...r.event_kinds].flatMap((k, i) => (TOKEN_KINDS.has(k) ? [i] : []));
    if (idx.length === 0) continue;
    const perEvent = (r.output_tokens ?? idx.length) / idx.length;
    for (const i of idx) {
      const t = r.sent_at_ms + r.event_times_ms[i];
      if (t >= a && t < b) tokens += perEvent;
    }
  }
  return tokens / ((b - a) / 1000);
}

/** Request-weighted mean (or the single run's p50) of one metric over the chosen runs. */
function value(metric: FidelityMetric, facts: RunFacts[], runs: number[]): number {
  const sel = runs.map((i) => facts[i]);
  if (metric === 'throughput_gain') return sel[1].outputTokS / sel[0].outputTokS;
  if (metric === 'output_tok_s_run') return sel.reduce((a, f) => a + f.outputTokSRun * f.requests, 0) / sel.reduce((a, f) => a + f.requests, 0);
  if (metric === 'output_tok_s') return sel.reduce((a, f) => a + f.outputTokS * f.requests, 0) / sel.reduce((a, f) => a + f.requests, 0);
  const pick = (f: RunFacts): number => {
    const d = metric.startsWith('ttft') ? f.ttft : f.tpot;
    return (metric.endsWith('p50_ms') ? d.p50 : d.mean) ?? NaN;
  };
  return sel.reduce((a, f) => a + pick(f) * f.requests, 0) / sel.reduce((a, f) => a + f.requests, 0);
}

export interface FidelityOptions {
  /** Fraction of each open-loop run's requests to send (same rates and shapes); 1 = the published request counts. */
  requestScale?: number;
  points?: FidelityPoint[];
}

/** Simulate every point and score it against its published values. */
export async function runFidelity(o: FidelityOptions = {}): Promise<FidelityReport> {
  const scale = o.requestScale ?? 1;
  const rows: FidelityRow[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'tokenflood-fidelity-'));
  try {
    for (const p of o.points ?? loadFidelityPoints()) {
      const facts: RunFacts[] = [];
      const needsRecords = p.published.some((m) => m.metric === 'output_tok_s' || m.metric === 'throughput_gain');
      for (const [i, r] of p.runs.entries()) {
        // Open-loop runs are steady state, so fewer requests at the same rate keep the means; closed-loop runs are small.
        const requests = r.rate === undefined ? (r.requests as number) : Math.min(r.requests as number, Math.max(300, Math.round((r.requests as number) * scale)));
        const res = await simulate({ ...r, requests, out: join(dir, `${p.id}-${i}`), quiet: true } as never);
        const s = res.summary;
        // Reading the records back costs time: only throughput metrics need them.
        const outputTokS = needsRecords ? steadyOutputTokS(res.records) : NaN;
        facts.push({ requests, ttft: s.ttft_ms as DistStats, tpot: s.tpot_ms as DistStats, outputTokS, outputTokSRun: s.output_throughput as number });
      }
      for (const pub of p.published) {
        const simulated = value(pub.metric, facts, pub.runs ?? facts.map((_, i) => i));
        rows.push({ id: p.id, ...(p.family ? { family: p.family } : {}), metric: pub.metric, published: pub.value, simulated, error: (simulated - pub.value) / pub.value, scored: pub.scored !== false });
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const abs = (f: keyof FidelityReport['medianAbsError'], of = rows) => of.filter((r) => r.scored && family(r.metric) === f).map((r) => Math.abs(r.error));
  const medians = (of: FidelityRow[]) => ({ ttft: median(abs('ttft', of)), tpot: median(abs('tpot', of)), throughput: median(abs('throughput', of)) });
  const families = [...new Set(rows.flatMap((r) => (r.family ? [r.family] : [])))];
  return {
    rows,
    medianAbsError: medians(rows),
    maxAbsTtftError: maxOf(abs('ttft')),
    byFamily: Object.fromEntries(families.map((f) => [f, medians(rows.filter((r) => r.family === f))])),
  };
}
