// A short-only run at the same load into OUT/short-baseline/ (run --short-baseline TOKENS, or automatic for a mixed-length
// workload: short-baseline-auto.ts), then the mixed run into OUT, then the slowdown of the short requests (summary.json short_baseline, a terminal table; docs/metrics.md#short-vs-long-baseline).
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { checkOutDir } from '../outdir.js';
import { run } from '../run.js';
import type { ResolvedRun } from '../config/load.js';
import type { Reporter } from '../report/events.js';
import type { Workload } from '../dataset/workload-types.js';
import type { RequestSpec } from '../dataset/types.js';
import { ShortValues, shortSlowdown, SLOWDOWN_METRICS, type ShortBaselineSummary } from '../metrics/short-slowdown.js';
import { ARTIFACTS } from '../artifacts/registry.js';
import { writeJsonFile } from '../artifacts/run-files.js';
import { fmt, table } from '../report/format.js';
import { firstWave, type BaselinePlan } from './short-baseline-auto.js';
import { sendConfig } from '../config/schema.js';

/** The same workload with only the requests whose prompt is under `threshold` tokens. */
export function shortOnly(threshold: number): (base: () => Workload) => Workload {
  return (base) => {
    const w = base();
    if (w.schedule) throw new UsageError(['--short-baseline: trace sessions (a turn waits for its predecessor) cannot be split into short and long requests; replay a trace without sessions']);
    const isShort = (s: RequestSpec | undefined) => s !== undefined && s.inputTokens < threshold;
    if (w.size !== undefined) {
      // A finite workload (once-mode dataset, replay): its short requests, at their recorded send times when it has them.
      const keep: { spec: RequestSpec; at?: number }[] = [];
      for (let i = 0; i < w.size; i++) {
        const s = w.next(i);
        if (s instanceof Promise) throw new UsageError(['--short-baseline: this workload cannot be filtered ahead of the run']);
        if (isShort(s)) keep.push({ spec: s!, at: w.arrivalTimesMs?.[i] });
      }
      return {
        next: (j) => keep[j]?.spec,
        prefetchable: true,
        size: keep.length,
        ...(w.arrivalTimesMs ? { arrivalTimesMs: keep.map((k) => k.at ?? 0) } : {}),
        describe: () => ({ ...w.describe(), short_only_below_tokens: threshold, short_requests: keep.length }),
      };
    }
    // An endless workload (synthetic lengths, a reused dataset): skip the long ones, in order.
    const memo = new Map<number, RequestSpec | undefined>();
    let cursor = 0;
    return {
      next: (j) => {
        if (memo.has(j)) return memo.get(j);
        let s: RequestSpec | undefined;
        for (let tries = 0; tries < 100_000; tries++) {
          const x = w.next(cursor++);
          if (x instanceof Promise) throw new UsageError(['--short-baseline: this workload cannot be filtered']);
          if (x === undefined || isShort(x)) {
            s = x;
            break;
          }
        }
        memo.set(j, s);
        return s;
      },
      prefetchable: w.prefetchable,
      describe: () => ({ ...w.describe(), short_only_below_tokens: threshold }),
    };
  };
}

/** The terminal table of the slowdown. */
export function slowdownLines(s: ShortBaselineSummary): string[] {
  const label: Record<string, string> = { ttft_ms: 'TTFT', tpot_ms: 'TPOT', e2e_ms: 'E2E' };
  const ci = (c: [number, number] | null) => (c ? `[${fmt(c[0])}, ${fmt(c[1])}]` : '-');
  const ratio = (x: number | null) => (x === null ? '-' : `${fmt(x)}×`);
  const rows = SLOWDOWN_METRICS.map((m) => {
    const r = s.rows[m];
    return [`${label[m]} (ms)`, fmt(r.baseline.mean), fmt(r.mixed.mean), r.difference_ms === null ? '-' : `${r.difference_ms >= 0 ? '+' : ''}${fmt(r.difference_ms)}`, ci(r.difference_ci95), ratio(r.ratio), fmt(r.baseline.p99), fmt(r.mixed.p99), ratio(r.p99_ratio)];
  });
  return [
    '',
    `short-vs-long baseline (prompts under ${s.threshold_tokens} tokens are short): ${s.mixed_short_requests} short and ${s.mixed_long_requests} long requests in the mixed run, ${s.baseline_requests} in the short-only baseline (${s.baseline_dir})`,
    table(['short requests', 'baseline mean', 'mixed mean', 'difference', 'difference 95% CI', 'ratio', 'baseline p99', 'mixed p99', 'p99 ratio'], rows),
  ];
}

/** A reporter collecting the short requests' values of a run as its records arrive. */
const collect = (v: ShortValues): Reporter => ({ name: 'short-values', record: (r) => v.add(r) });

/**
 * The two runs and the comparison: the short-only baseline (`plan`: explicit or automatic, bounded or not), then the
 * mixed run. `reporters(phase)` gives each run its reporters; the mixed run's summary gets `short_baseline` before its
 * reporters end (so --json prints it) and summary.json is written again with it; the table is printed with `print`.
 * Without --out (automatic only) both runs take default directories and the baseline's is then moved into the mixed one's.
 */
export async function runWithShortBaseline(resolved: ResolvedRun, plan: BaselinePlan, o: { reporters: (phase: 'baseline' | 'mixed') => Reporter[]; signal?: AbortSignal; print: (text: string) => void; notice: (line: string) => void }): Promise<ShortBaselineSummary | undefined> {
  const c = resolved.config;
  const { threshold } = plan;
  const givenDir = c.out === undefined ? undefined : join(c.out, 'short-baseline');
  if (!plan.automatic) o.notice(`--short-baseline: first a short-only baseline (prompts under ${threshold} tokens) at the same load into ${givenDir}`);
  const bounded = { ...(plan.requests !== undefined ? { requests: plan.requests } : {}), ...(plan.duration !== undefined ? { duration: plan.duration } : {}) };
  // Warmup and the closed loop's first wave give no values (short-baseline-auto.ts firstWave); the same ids in both runs.
  const wave = firstWave(c);
  const firstValueId = sendConfig(c).warmup + wave;
  const how = { ...plan, firstWave: wave };
  const baseValues = new ShortValues(threshold, firstValueId);
  // The mixed run's directory is checked before the baseline sends anything (one holding a run: exit 2, nothing sent).
  if (c.out !== undefined) checkOutDir(c.out, c.overwrite);
  const baseConfig = { ...c, ...bounded, out: givenDir, shortBaseline: undefined, autoShortBaseline: false };
  const base = await run({ ...resolved, config: baseConfig }, { signal: o.signal, reporters: [...o.reporters('baseline'), collect(baseValues)], workload: shortOnly(threshold) });
  if (o.signal?.aborted) return undefined;
  o.notice(`${plan.automatic ? 'short-only baseline done' : '--short-baseline'}: now the mixed run${c.out === undefined ? '' : ` into ${c.out}`}`);
  const mixedValues = new ShortValues(threshold, firstValueId);
  let s: ShortBaselineSummary | undefined;
  // Before the terminal reporter: --json's document carries the comparison.
  const attach: Reporter = {
    name: 'short-baseline',
    runEnd: (e) => {
      s = shortSlowdown(baseValues, mixedValues, threshold, givenDir ?? join(e.outDir, 'short-baseline'), how);
      e.summary.short_baseline = s;
    },
  };
  const mixed = await run(resolved, { signal: o.signal, reporters: [collect(mixedValues), attach, ...o.reporters('mixed')] });
  s ??= shortSlowdown(baseValues, mixedValues, threshold, givenDir ?? join(mixed.outDir, 'short-baseline'), how);
  if (givenDir === undefined) {
    try {
      renameSync(base.outDir, s.baseline_dir);
    } catch (e) {
      o.notice(`the short-only baseline stays in ${base.outDir}: cannot move it into ${s.baseline_dir}: ${(e as Error).message}`);
      s.baseline_dir = base.outDir;
    }
  }
  writeJsonFile(mixed.outDir, ARTIFACTS.summary, { ...mixed.summary, short_baseline: s });
  o.print(slowdownLines(s).join('\n') + '\n');
  return s;
}
