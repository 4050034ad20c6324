// HTML building blocks shared by the reports: headline tiles, tables, metadata and plain-word findings. All text is escaped here.
import { DEFAULT_PERCENTILES, percentileKey, type DistStats } from '../../metrics/stats.js';
import type { MetricsBlock } from '../../metrics/summary.js';
import { metricsShownIn } from '../../metrics/registry/index.js';
import type { SloResult } from '../../metrics/slo.js';
import { describeSloChecks } from '../../metrics/slo.js';
import { SECRET_HEADERS } from '../../util/parse.js';
import { escapeHtml as esc } from './escape.js';
import { playbookRows } from '../error-playbook.js';

/** Number for display: thousands separators from 1,000, fewer decimals as values grow; '–' when missing. */
export function num(x: number | null | undefined, digits = 2): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  const a = Math.abs(x);
  if (a >= 1000) return Math.round(x).toLocaleString('en-US');
  if (a >= 100) return x.toFixed(1);
  return x.toFixed(digits);
}
export const pctText = (x: number | null | undefined): string => (x === null || x === undefined ? '–' : `${(x * 100).toFixed(x > 0 && x < 0.01 ? 2 : 1)}%`);

export interface Tile {
  label: string;
  value: string;
  unit?: string;
  tone?: 'good' | 'bad';
}

export function tiles(ts: readonly Tile[]): string {
  return `<div class="tiles">${ts
    .map((t) => `<div class="tile${t.tone ? ` ${t.tone}` : ''}"><div class="k">${esc(t.label)}</div><div class="v">${esc(t.value)}${t.unit ? `<span class="u">${esc(t.unit)}</span>` : ''}</div></div>`)
    .join('')}</div>`;
}

/** A table; cells are plain text (escaped) unless given as {html}. The first column is left-aligned; class `wide` packs many columns. */
export function htmlTable(header: readonly string[], rows: readonly (string | { html: string } | { text: string })[][], cls?: 'wide'): string {
  const cell = (c: string | { html: string } | { text: string }) =>
    typeof c === 'string' ? `<td>${esc(c)}</td>` : 'html' in c ? `<td>${c.html}</td>` : `<td class="text">${esc(c.text)}</td>`;
  return `<div class="scroll"><table${cls ? ` class="${cls}"` : ''}><thead><tr>${header.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map(cell).join('')}</tr>`)
    .join('')}</tbody></table></div>`;
}

/** The distributions the report shows (the registry's, with any registered metric), label and summary key. */
export const distRows = (): [string, string][] => metricsShownIn('report').map((d) => [d.label, d.id]);

/** A figure with its 95% interval under it (`ci95` of the summary), or alone when it has none. */
export function figureWithCi(v: number | null, ci: [number, number] | null | undefined): string | { html: string } {
  if (!ci || v === null) return num(v);
  return { html: `${esc(num(v))}<span class="ci" title="95% confidence interval">${esc(num(ci[0]))}–${esc(num(ci[1]))}</span>` };
}

/**
 * One row per distribution, one column per percentile of `ps` (the run's --percentiles): count, mean, stdev, min, the
 * percentiles, max; the mean and each percentile with its 95% interval under it.
 */
export function percentileTable(m: MetricsBlock, ps: readonly number[] = DEFAULT_PERCENTILES): string {
  const dist = (k: string) => (m as unknown as Record<string, DistStats | undefined>)[k];
  const rows = distRows().filter(([, k]) => dist(k)?.count).map(([label, k]) => {
    const d = dist(k)!;
    const at = (key: string) => figureWithCi(key === 'mean' ? d.mean : (d[key as `p${number}`] ?? null), d.ci95?.[key]);
    return [label, String(d.count), at('mean'), num(d.stdev), num(d.min), ...ps.map((p) => at(percentileKey(p))), num(d.max)];
  });
  return htmlTable(['metric', 'count', 'mean', 'stdev', 'min', ...ps.map((p) => `p${p}`), 'max'], rows);
}

export function statementsList(lines: readonly string[]): string {
  return lines.length ? `<ul class="insights">${lines.map((l) => `<li>${esc(l)}</li>`).join('')}</ul>` : '<p class="muted">Nothing to note.</p>';
}

export function sloBlock(slo: string, res: SloResult): string {
  const verdict = res.passed ? '<span class="pass">PASSED</span>' : '<span class="fail">FAILED</span>';
  const lines = describeSloChecks(res);
  return `<p>SLOs <code>${esc(slo)}</code>: ${verdict}. Goodput ${esc(num(res.goodput_req_s))} req/s, ${esc(num(res.goodput_tok_s))} output tok/s (${esc(pctText(res.good_fraction))} of requests were good).</p>${statementsList(lines)}`;
}

export function errorsTable(m: MetricsBlock): string {
  if (!m.requests.errors.length) return '<p class="muted">No failed requests.</p>';
  return htmlTable(
    ['kind', 'HTTP status', 'count', 'example message (as sent by the server)'],
    m.requests.errors.map((e) => [e.kind, e.http_status === null ? '' : String(e.http_status), String(e.count), { text: e.example ?? '' }]),
  ) + playbookTable(m);
}

/** The error playbook: each failure code, its count and what to check (docs/reliability.md#the-error-playbook). */
function playbookTable(m: MetricsBlock): string {
  const rows = playbookRows(m);
  if (!rows.length) return '';
  return `<h3>What to check</h3>${htmlTable(['code', 'count', 'what to check'], rows.map((r) => [r.code, String(r.count), { text: r.hint }]))}`;
}

/** A metadata subtree of more fields than this is folded (metadataTable). */
const FOLD_ROWS = 8;

/** Keys whose values are secrets, whatever they hold (run.json already redacts them; this is a second line of defence). */
const SECRET_KEY = /^(api[-_]?key|apikey|authorization|proxy[-_]authorization|x[-_]api[-_]key|cookie|password|secret)$/i;

/** Strip secrets from metadata: secret keys, and "Name: value" header lines whose name is a secret header. */
export function scrubSecrets(v: unknown, key = ''): unknown {
  if (SECRET_KEY.test(key)) return v === undefined || v === null ? v : '[redacted]';
  if (typeof v === 'string') {
    const m = /^\s*([^:\s]+)\s*:/.exec(v);
    return m && SECRET_HEADERS.test(m[1]) ? `${m[1]}: [redacted]` : v;
  }
  if (Array.isArray(v)) return v.map((x) => scrubSecrets(x));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, scrubSecrets(x, k)]));
  return v;
}

/**
 * Metadata as a two-column table of dotted keys (nested objects flattened, arrays shown as JSON). The subtrees
 * named in `fold` (the effective options, `config`: half the page's height otherwise) are folded in a <details>,
 * and so is any other subtree of more than FOLD_ROWS fields (client health, telemetry sources), in a second one.
 */
export function metadataTable(meta: Record<string, unknown>, fold: readonly string[] = ['config']): string {
  const rows: [string, string][] = [];
  const walk = (o: Record<string, unknown>, prefix: string) => {
    for (const [k, v] of Object.entries(o)) {
      const key = prefix ? `${prefix}.${k}` : k;
      if (v && typeof v === 'object' && !Array.isArray(v)) walk(v as Record<string, unknown>, key);
      else if (v !== undefined) rows.push([key, typeof v === 'string' ? v : JSON.stringify(v)]);
    }
  };
  walk(scrubSecrets(meta) as Record<string, unknown>, '');
  const table = (rs: [string, string][]) => htmlTable(['field', 'value'], rs.map(([k, v]) => [k, { text: v.length > 2000 ? `${v.slice(0, 2000)}…` : v }]));
  const head = (k: string) => (k.includes('.') ? k.split('.')[0] : '');
  const size = new Map<string, number>();
  for (const [k] of rows) size.set(head(k), (size.get(head(k)) ?? 0) + 1);
  const folded = rows.filter(([k]) => fold.includes(head(k)));
  const more = rows.filter(([k]) => !fold.includes(head(k)) && head(k) && size.get(head(k))! > FOLD_ROWS);
  const shown = rows.filter(([k]) => !fold.includes(head(k)) && !(head(k) && size.get(head(k))! > FOLD_ROWS));
  const details = (cls: string, summary: string, rs: [string, string][]) => (rs.length ? `<details class="fold ${cls}"><summary>${summary}</summary>${table(rs)}</details>` : '');
  return (
    table(shown) +
    details('more', `More metadata: ${more.length} fields (${esc([...new Set(more.map(([k]) => head(k)))].join(', '))})`, more) +
    details('config', `Configuration: ${folded.length} options (click to show)`, folded)
  );
}
