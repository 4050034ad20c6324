// The dashboard page: an HTML shell whose scripts and styles are files of the same origin (the CSP allows nothing else).
import { escapeHtml } from '../report/html/escape.js';
import { chartBase, GRID_TOP_WITH_LEGEND, LEGEND_ROW, valueAxis } from '../report/html/chart-kit.js';

/** Every response carries this: scripts, styles and connections only from the dashboard itself; no framing, no forms. */
export const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // ECharts positions its tooltip with inline style attributes; styles cannot run code.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Chart id → [title, y axis name, series names] (the series the page fills from each tick). */
export const DASHBOARD_CHARTS: Record<string, [string, string, string[]]> = {
  'c-rps': ['Requests per second', 'req/s', ['req/s']],
  'c-tok': ['Output tokens per second', 'tok/s', ['output tok/s']],
  'c-inflight': ['Requests in flight', 'requests', ['in flight']],
  'c-ttft': ['TTFT (last 10 s)', 'ms', ['p50', 'p99']],
  'c-tpot': ['TPOT (last 10 s)', 'ms', ['p50', 'p99']],
  'c-itl': ['ITL (last 10 s)', 'ms', ['p50', 'p99']],
  'c-errors': ['Errors by kind (last 10 s)', 'failed requests', []],
  'c-health': ['Client health', 'ms', ['schedule lag p99', 'event-loop delay p99']],
  'c-server': ['Server queue (its /metrics)', 'requests', ['running', 'waiting']],
  // Both in percent (0–100): the server's KV usage fraction × 100, nvidia-smi's utilization.
  'c-kv': ['KV cache usage and GPU utilization', '%', ['KV cache', 'GPU']],
};

/** The charts that also draw the run's extra --percentiles (SeriesPoint `*_extra`), after p50 and p99. */
const LATENCY_CHARTS = ['c-ttft', 'c-tpot', 'c-itl'];

/** The ECharts options each chart starts from (the report's building blocks); the page sets the series' data. */
export function chartOptions(extra: readonly number[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [id, [title, unit, names]] of Object.entries(DASHBOARD_CHARTS)) {
    const series = LATENCY_CHARTS.includes(id) ? [...names, ...extra.map((p) => `p${p}`)] : names;
    out[id] = {
      ...chartBase(title, { legend: LEGEND_ROW, grid: { left: 64, right: 28, top: GRID_TOP_WITH_LEGEND, bottom: 48 } }),
      xAxis: { type: 'value', name: 'run time (s)', nameLocation: 'middle', nameGap: 26, min: 0 },
      yAxis: valueAxis(unit, unit === '%' ? { min: 0, max: 100 } : { min: 0 }),
      series: series.map((name) => ({ name, type: 'line', showSymbol: false, data: [] })),
    };
  }
  return out;
}

const CSS = `
:root{--bg:#f4f6fa;--card:#fff;--ink:#1c2330;--mute:#5d6778;--line:#e3e7ee;--accent:#3b6fd8;--bad:#d64545}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--ink);font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
header{background:linear-gradient(120deg,#18213a,#2b3f73);color:#fff;padding:14px 24px;display:flex;gap:24px;align-items:center;flex-wrap:wrap}
header h1{margin:0;font-size:19px;font-weight:650}header .sub{opacity:.8;font-size:13px;word-break:break-all}
.status{margin-left:auto;display:flex;gap:18px;flex-wrap:wrap}.status div{font-size:12px;opacity:.85}.status b{display:block;font-size:18px}
.controls{display:flex;gap:8px;align-items:center;padding:10px 24px;background:#fff;border-bottom:1px solid var(--line);flex-wrap:wrap}
button{font:inherit;padding:5px 12px;border-radius:6px;border:1px solid var(--line);background:#fff;cursor:pointer}
button.stop{background:var(--bad);color:#fff;border-color:var(--bad)}button:disabled{opacity:.5;cursor:default}
input{font:inherit;width:90px;padding:4px 6px;border:1px solid var(--line);border-radius:6px}
.msg{color:var(--mute);font-size:13px}
main{padding:16px 20px 40px}.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(460px,1fr));gap:14px}
.card{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:12px 14px;margin-bottom:14px}
.chart{width:100%;height:260px}
nav.tabs{display:flex;gap:6px;margin:8px 0}nav.tabs button.on{background:var(--accent);color:#fff;border-color:var(--accent)}
.tab{display:none}.tab.on{display:block}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}
th,td{padding:4px 8px;border-bottom:1px solid var(--line);text-align:right;white-space:nowrap}
th:first-child,td:first-child{text-align:left}th{color:var(--mute);font-weight:600;font-size:12px;background:#fafbfd;white-space:normal;vertical-align:bottom}
#stats th,#stats td{padding:4px 5px;font-size:12.5px}
td.text{text-align:left;white-space:normal;word-break:break-word;max-width:640px}
.scroll{overflow-x:auto}pre{background:#f7f8fb;border:1px solid var(--line);border-radius:6px;padding:10px;overflow:auto;font-size:12px}
ul.links li{margin:4px 0}
`;

export const dashboardCss = (): string => CSS;

/** An inline icon (the CSP allows data: images): without one the browser asks for /favicon.ico without the token, a 403. */
export const FAVICON = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Crect width='16' height='16' rx='3' fill='%233b6fd8'/%3E%3C/svg%3E";

/** The page; `token` is hex (createToken), so it needs no escaping, but is escaped anyway. */
export function dashboardHtml(token: string): string {
  const q = `?token=${escapeHtml(token)}`;
  const charts = Object.keys(DASHBOARD_CHARTS)
    .map((id) => `<div class="card"><div class="chart" id="${id}"></div></div>`)
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>tokenflood live</title>
<link rel="icon" href="${FAVICON}">
<link rel="stylesheet" href="/assets/dashboard.css${q}">
</head><body>
<header><div><h1>tokenflood live</h1><div class="sub" id="target"></div></div>
<div class="status"><div>state<b id="state">connecting</b></div><div>elapsed<b id="elapsed">0 s</b></div><div>done<b id="done">0</b></div><div>failed<b id="failed">0</b></div><div>in flight<b id="inflight">0</b></div><div>req/s<b id="rps">0</b></div><div>stage<b id="stage">-</b></div></div></header>
<div class="controls"><button class="stop" id="stop">Stop run</button>
<label id="load-label" for="load-value">load</label><input id="load-value" type="number" min="0" step="any"><button id="load-apply">Apply</button>
<span class="msg" id="msg"></span></div>
<main><div class="grid">${charts}</div>
<nav class="tabs"><button data-tab="t-stats" class="on">Statistics</button><button data-tab="t-failures">Failures</button><button data-tab="t-stages">Stages</button><button data-tab="t-config">Configuration</button><button data-tab="t-downloads">Downloads</button></nav>
<div class="card tab on" id="t-stats"><div class="scroll"><table id="stats"></table></div></div>
<div class="card tab" id="t-failures"><div class="scroll"><table id="failures"></table></div></div>
<div class="card tab" id="t-stages"><div class="scroll"><table id="stages"></table></div></div>
<div class="card tab" id="t-config"><pre id="config"></pre></div>
<div class="card tab" id="t-downloads"><ul class="links" id="downloads"></ul></div>
</main>
<script src="/assets/echarts.js${q}"></script>
<script src="/assets/dashboard.js${q}"></script>
</body></html>
`;
}
