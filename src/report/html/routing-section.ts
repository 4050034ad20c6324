// report.html section for runs over several endpoints or models, and for shared-prefix groups (cache locality).
import type { RequestRecord } from '../../metrics/record.js';
import type { MetricsBlock, Summary } from '../../metrics/summary.js';
import { cdfChart } from './run-charts.js';
import { htmlTable, num, pctText } from './sections.js';
import { escapeHtml as esc } from './escape.js';
import { placementText, routingOf } from '../../backends/route-tally.js';
import { latencyColumns, type BreakdownColumn } from '../breakdown-columns.js';

const head = (lat: BreakdownColumn[]) => ['ok', 'error rate', ...lat.map((c) => c.head), 'output tok/s', 'cached tokens mean'];
const row = (name: string, m: MetricsBlock, lat: BreakdownColumn[]): string[] => [
  name,
  String(m.requests.ok),
  pctText(m.requests.error_rate),
  ...lat.map((c) => num(c.value(m))),
  num(m.output_throughput),
  num(m.cached_tokens.mean),
];

/** The "Endpoints and models" section, or undefined when the run had one endpoint, one model and no prefix groups. */
export function routingSection(s: Summary, records: readonly RequestRecord[], charts: Record<string, unknown>): { id: string; title: string; html: string } | undefined {
  if (!s.by_endpoint && !s.by_model && !s.prefix_groups) return undefined;
  const parts: string[] = [];
  const lat = latencyColumns(s.percentiles);
  const r = routingOf(s.run);
  if (r) {
    parts.push(`<p class="muted">${esc(placementText(r))} (docs/routing.md#what-the-run-records)</p>`);
    const names = [...new Set([...Object.keys(r.by_rule ?? {}), ...Object.keys(r.instances ?? {}), ...Object.keys(r.unknown_instances ?? {})])];
    if (names.length)
      parts.push(
        htmlTable(
          ['endpoint or instance', 'placed by the rule', 'hits of its trace instance', 'instance unknown'],
          names.map((n) => [n, String(r.by_rule?.[n] ?? 0), String(r.instances?.[n] ?? 0), String(r.unknown_instances?.[n] ?? 0)]),
        ),
      );
  }
  if (s.by_endpoint) {
    parts.push(`<h3>By endpoint</h3>${htmlTable(['endpoint', ...head(lat)], Object.entries(s.by_endpoint).map(([k, m]) => row(k, m, lat)))}`);
    const ok = records.filter((r) => !r.warmup && r.status === 'ok' && r.ttft_ms !== null && r.endpoint !== undefined);
    const series = Object.keys(s.by_endpoint).map((name) => ({ name, values: ok.filter((r) => r.endpoint === name).map((r) => r.ttft_ms as number) }));
    charts['c-endpoint-ttft'] = cdfChart('TTFT CDF by endpoint', series, 'ms');
    parts.push('<div class="chart" id="c-endpoint-ttft"></div>');
  }
  if (s.by_model) parts.push(`<h3>By model</h3>${htmlTable(['model', ...head(lat)], Object.entries(s.by_model).map(([k, m]) => row(k, m, lat)))}`);
  const g = s.prefix_groups;
  if (g) {
    parts.push(
      `<h3>Prefix groups and cache locality</h3><p class="muted">cache locality ${esc(s.cache_locality == null ? '–' : pctText(s.cache_locality))}: ` +
        `${g.hits} of ${g.eligible} requests reached a server that had already served their shared prefix (docs/metrics.md#cache-locality); ` +
        `cached-token rate ${esc(g.cached_token_rate === null ? 'not reported' : pctText(g.cached_token_rate))}.</p>`,
      htmlTable(
        ['group', 'requests', 'served by', 'cached-token rate'],
        Object.entries(g.by_group).map(([k, x]) => [k, String(x.requests), { text: Object.entries(x.endpoints).map(([e, n]) => `${e} ${n}`).join(', ') }, x.cached_token_rate === null ? '–' : pctText(x.cached_token_rate)]),
      ),
    );
  }
  return { id: 'routing', title: 'Endpoints and models', html: parts.join('') };
}
