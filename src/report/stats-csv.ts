// stats.csv: the Locust practice's per-run figures (QPS, QPM, TTFT/E2E means and percentiles, output time, tok/s, fail rate), one row per class.
import type { MetricsBlock, Summary } from '../metrics/summary-model.js';
import { DEFAULT_PERCENTILES, percentileKey, type DistStats } from '../metrics/stats.js';
import { csvCell } from './csv-cell.js';
import { distOf, metricsShownIn, type MetricDef } from '../metrics/registry/index.js';
import { ARTIFACTS } from '../artifacts/registry.js';
import { priorityEntries } from './breakdown-columns.js';

export const STATS_CSV = ARTIFACTS.stats.file;

type Cell = string | number | null;

/** The registry's stats.csv percentiles (TTFT and E2E) always at these; --percentiles adds columns for the others it names. */
const FIXED_PERCENTILES: readonly number[] = [50, 90, 95, 99];

/** The metrics with percentile columns (the registry's stats_csv ones, in its order). */
const csvMetrics = (): (MetricDef & Required<Pick<MetricDef, 'statsCsv'>>)[] => metricsShownIn('stats_csv').filter((d): d is MetricDef & Required<Pick<MetricDef, 'statsCsv'>> => d.statsCsv !== undefined);

const mcol = (d: Required<Pick<MetricDef, 'statsCsv'>>) => `${d.statsCsv.name}_mean${d.statsCsv.suffix}`;
const pcol = (d: Required<Pick<MetricDef, 'statsCsv'>>, p: number) => `${d.statsCsv.name}_${percentileKey(p)}${d.statsCsv.suffix}`;

/** The columns, in order, for a run that asked for `percentiles` (docs/output-format.md#statscsv gives each formula). */
export function statsColumns(percentiles: readonly number[] = DEFAULT_PERCENTILES): string[] {
  const extra = percentiles.filter((p) => !FIXED_PERCENTILES.includes(p));
  const ps = [...FIXED_PERCENTILES, ...extra];
  return [
    'class', 'requests', 'ok', 'failed', 'fail_rate', 'duration_s', 'qps', 'qpm',
    // The mean first, beside its percentiles: the practice's headline FIRST_TOKEN_TIME / WHOLE_TOKEN_TIME are means.
    ...csvMetrics().flatMap((d) => [mcol(d), ...ps.map((p) => pcol(d, p))]),
    'output_time_mean_ms', 'output_tok_s_per_request_mean', 'output_tok_s', 'input_tokens_mean', 'output_tokens_mean',
    // Throughput in the practice's other units: samples/s and MB/s of request and response bodies.
    'samples_s', 'request_mb_s', 'response_mb_s',
  ];
}

const pval = (d: DistStats | undefined, key: string): number | null => (d ? ((d as unknown as Record<string, number | null | undefined>)[key] ?? null) : null);

/**
 * One row of a metrics block. ttft_mean_ms, e2e_mean_ms = the metrics' means over ok requests; qps = ok requests / duration_s; qpm = 60 · qps; fail_rate = failed / (total − cancelled);
 * output_time_mean_ms = mean E2E − mean TTFT of ok requests (the mean time from the first token to the last);
 * output_tok_s_per_request_mean = mean per-request output speed; output_tok_s = Σ output tokens / duration_s;
 * samples_s = samples_per_s; request_mb_s, response_mb_s = Σ body bytes / 10⁶ / duration_s.
 */
export function statsRow(cls: string, m: MetricsBlock, columns: readonly string[]): Cell[] {
  const e2e = m.e2e_ms.mean;
  const ttft = m.ttft_ms.mean;
  const v: Record<string, Cell> = {
    class: cls,
    requests: m.requests.total,
    ok: m.requests.ok,
    failed: m.requests.failed,
    fail_rate: m.requests.error_rate,
    duration_s: m.duration_s,
    qps: m.request_throughput,
    qpm: m.qpm,
    output_time_mean_ms: e2e !== null && ttft !== null ? e2e - ttft : null,
    output_tok_s_per_request_mean: m.output_speed_tok_s.mean,
    output_tok_s: m.output_throughput,
    input_tokens_mean: m.input_tokens.mean,
    output_tokens_mean: m.output_tokens.mean,
    samples_s: m.samples_per_s ?? null,
    request_mb_s: m.request_mb_per_s ?? null,
    response_mb_s: m.response_mb_per_s ?? null,
  };
  // A percentile column: the metric whose name and suffix frame it, at the key between them (ttft_p99_9_ms → ttft_ms, p99_9).
  const defs = csvMetrics();
  return columns.map((c) => {
    if (c in v) return v[c];
    for (const d of defs) {
      const head = `${d.statsCsv.name}_`;
      if (!c.startsWith(head) || !c.endsWith(d.statsCsv.suffix)) continue;
      const key = c.slice(head.length, c.length - d.statsCsv.suffix.length);
      if (/^p[0-9_]+$/.test(key) || key === 'mean') return pval(distOf(m, d), key);
    }
    return null;
  });
}

/**
 * stats.csv text: a header, the whole run (`class` = all), then each request class (by_class) by name, then each
 * input-length band (by_length_band) as `class` = "input:BAND", e.g. input:4k-16k, then each priority (by_priority),
 * lowest first, as "priority:N".
 */
export function statsCsv(s: Summary): string {
  const columns = statsColumns(s.percentiles ?? DEFAULT_PERCENTILES);
  const rows = [
    statsRow('all', s, columns),
    ...Object.entries(s.by_class ?? {}).map(([c, m]) => statsRow(c, m, columns)),
    ...Object.entries(s.by_length_band ?? {}).map(([b, m]) => statsRow(`input:${b}`, m, columns)),
    ...priorityEntries(s.by_priority ?? {}).map(([k, m]) => statsRow(`priority:${k}`, m, columns)),
  ];
  return [columns.join(','), ...rows.map((r) => r.map(csvCell).join(','))].join('\n') + '\n';
}
