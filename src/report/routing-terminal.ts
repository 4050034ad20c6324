// Terminal lines for runs over several endpoints or models, and for shared-prefix groups (cache locality).
import type { MetricsBlock, Summary } from '../metrics/summary.js';
import { fmt, pct, table, safeTerminalText } from './format.js';
import { placementText, routingOf } from '../backends/route-tally.js';
import { latencyColumns, type BreakdownColumn } from './breakdown-columns.js';

const row = (name: string, m: MetricsBlock, lat: BreakdownColumn[]): string[] => [
  safeTerminalText(name, 64),
  String(m.requests.ok),
  pct(m.requests.error_rate),
  ...lat.map((c) => fmt(c.value(m))),
  fmt(m.output_throughput),
];

const head = (lat: BreakdownColumn[]) => ['ok', 'errors', ...lat.map((c) => c.head), 'out tok/s'];

/** by endpoint, by model, and the prefix groups' cache locality; nothing for a run with one endpoint, one model and no groups. */
export function routingLines(s: Summary): string[] {
  const out: string[] = [];
  const lat = latencyColumns(s.percentiles);
  const r = routingOf(s.run);
  if (r) {
    out.push('', safeTerminalText(placementText(r), 400));
    if (r.by_rule && Object.keys(r.by_rule).length) out.push(`  by the rule: ${Object.entries(r.by_rule).map(([k, n]) => `${safeTerminalText(k, 64)} ${n}`).join(', ')}`);
    if (r.instances) out.push(`  hits per instance: ${Object.entries(r.instances).map(([k, n]) => `${safeTerminalText(k, 64)} ${n}`).join(', ')}`);
  }
  if (s.by_endpoint) out.push('', 'by endpoint:', table(['endpoint', ...head(lat)], Object.entries(s.by_endpoint).map(([k, m]) => row(k, m, lat))));
  if (s.by_model) out.push('', 'by model:', table(['model', ...head(lat)], Object.entries(s.by_model).map(([k, m]) => row(k, m, lat))));
  const g = s.prefix_groups;
  if (g) {
    const groups = Object.keys(g.by_group).length;
    out.push(
      '',
      `cache locality: ${s.cache_locality == null ? '-' : pct(s.cache_locality)} of ${g.eligible} requests reached a server that had served their prefix before` +
        ` (${groups} prefix group${groups === 1 ? '' : 's'}, ${g.units === 1 ? 'one server seen, so trivially' : `${g.units} servers`}; cached-token rate ${g.cached_token_rate === null ? 'not reported' : pct(g.cached_token_rate)})`,
    );
  }
  return out;
}
