// The self-contained HTML page shell: styles, inlined ECharts, the data as safe JSON and a tiny boot script.
import { createHash } from 'node:crypto';
import { echartsSource } from './echarts-source.js';
import { escapeHtml, jsonForScript, scriptSafe } from './escape.js';
import { FIT_LEGEND_JS } from './chart-kit.js';

export interface PageInput {
  title: string;
  subtitle: string;
  /** Section bodies in order; each becomes a card with an id for the navigation bar. */
  sections: { id: string; title: string; html: string }[];
  /** ECharts options by the id of the element that shows them (`<div class="chart" id=…>`). */
  charts: Record<string, unknown>;
  /** Optional banner (already escaped HTML), e.g. a simulated-time warning. */
  banner?: string;
}

const CSS = `
:root{--bg:#f4f6fa;--card:#fff;--ink:#1c2330;--mute:#5d6778;--line:#e3e7ee;--accent:#3b6fd8;--good:#1f9d6b;--bad:#d64545;--warn:#c98a0c}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--ink);font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif}
header{background:linear-gradient(120deg,#18213a,#2b3f73);color:#fff;padding:22px 32px 18px}
header h1{margin:0;font-size:22px;font-weight:650;letter-spacing:.2px}
header .sub{opacity:.8;margin-top:4px;font-size:13px;word-break:break-all}
nav{position:sticky;top:0;z-index:5;background:#fffe;backdrop-filter:blur(6px);border-bottom:1px solid var(--line);padding:8px 32px;display:flex;gap:16px;flex-wrap:wrap}
nav a{color:var(--mute);text-decoration:none;font-size:13px}nav a:hover{color:var(--accent)}
main{max-width:1280px;margin:0 auto;padding:20px 24px 60px}
section.card{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:18px 20px;margin:0 0 18px;box-shadow:0 1px 2px #0000000a}
section.card h2{margin:0 0 12px;font-size:16px;font-weight:650}
.banner{background:#fff6e0;border:1px solid #f1d38a;color:#7a5400;border-radius:8px;padding:10px 14px;margin-bottom:18px}
.tiles{display:grid;grid-template-columns:repeat(auto-fill,minmax(200px,1fr));gap:12px}
.tile{border:1px solid var(--line);border-radius:8px;padding:10px 12px;background:#fbfcfe}
.tile .k{color:var(--mute);font-size:12px}.tile .v{font-size:19px;font-weight:650;margin-top:2px;white-space:nowrap}.tile .u{font-size:12px;color:var(--mute);margin-left:3px;font-weight:400}
.tile.good .v{color:var(--good)}.tile.bad .v{color:var(--bad)}
.grid2{display:grid;grid-template-columns:repeat(auto-fit,minmax(520px,1fr));gap:16px}
.chart{width:100%;height:340px}.chart.tall{height:460px}.chart.short{height:190px}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}
th,td{padding:5px 8px;border-bottom:1px solid var(--line);text-align:right;white-space:nowrap}
th:first-child,td:first-child{text-align:left}th{color:var(--mute);font-weight:600;font-size:12px;background:#fafbfd;white-space:normal;vertical-align:bottom}
table.wide th,table.wide td{padding:4px 5px;font-size:12.5px}
td.text{text-align:left;white-space:normal;word-break:break-word;max-width:640px}
.scroll{overflow-x:auto}
ul.insights{margin:0;padding-left:20px}ul.insights li{margin:4px 0}
.pass{color:var(--good);font-weight:600}.fail{color:var(--bad);font-weight:600}
.muted{color:var(--mute)}
.ci{display:block;font-size:11px;color:var(--mute)}
details.fold{margin-top:10px}details.fold>summary{cursor:pointer;color:var(--accent);font-weight:600;margin-bottom:8px}
pre{background:#f7f8fb;border:1px solid var(--line);border-radius:6px;padding:10px;overflow:auto;font-size:12px}
footer{color:var(--mute);text-align:center;font-size:12px;padding:16px}
`;

/** Boot: draw every chart from the JSON data; report failures on the console; expose the count for tests. */
const BOOT = `(function(){
  ${FIT_LEGEND_JS}
  var data = JSON.parse(document.getElementById('tf-data').textContent);
  var charts = [];
  Object.keys(data).forEach(function (id) {
    var el = document.getElementById(id);
    if (!el) { console.error('tokenflood report: no element for chart ' + id); return; }
    try { var c = echarts.init(el, null, { renderer: 'canvas' }); c.setOption(data[id]); tfFitLegend(c); charts.push(c); }
    catch (e) { console.error('tokenflood report: chart ' + id + ' failed: ' + (e && e.message)); }
  });
  window.addEventListener('resize', function () { charts.forEach(function (c) { c.resize(); tfFitLegend(c); }); });
  window.__tokenfloodCharts = charts.length;
})();`;

/** An inline icon (img-src data: allows it): served by the dashboard, the page would otherwise ask for /favicon.ico without the token. */
const FAVICON = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Crect width='16' height='16' rx='3' fill='%233b6fd8'/%3E%3C/svg%3E";

const sha256 = (s: string): string => `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`;

export function renderPage(p: PageInput): string {
  const lib = echartsSource();
  const boot = scriptSafe(BOOT);
  // Only these two scripts may run: even if some text escaped its escaping, an injected inline script is blocked.
  const csp = `default-src 'none'; script-src ${sha256(lib)} ${sha256(boot)}; style-src 'unsafe-inline'; img-src data:`;
  const nav = p.sections.map((s) => `<a href="#${escapeHtml(s.id)}">${escapeHtml(s.title)}</a>`).join('');
  const body = p.sections
    .map((s) => `<section class="card" id="${escapeHtml(s.id)}"><h2>${escapeHtml(s.title)}</h2>${s.html}</section>`)
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<title>${escapeHtml(p.title)}</title>
<link rel="icon" href="${FAVICON}">
<style>${CSS}</style></head>
<body>
<header><h1>${escapeHtml(p.title)}</h1><div class="sub">${escapeHtml(p.subtitle)}</div></header>
<nav>${nav}</nav>
<main>${p.banner ? `<div class="banner">${p.banner}</div>` : ''}
${body}
</main>
<footer>generated by tokenflood · self-contained: opens offline</footer>
<script type="application/json" id="tf-data">${jsonForScript(p.charts)}</script>
<script>${lib}</script>
<script>${boot}</script>
</body></html>
`;
}
