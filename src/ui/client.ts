// The dashboard's browser script (served as /assets/dashboard.js): draws ticks from the event stream; server text only via textContent.
import { FIT_LEGEND_JS } from '../report/html/chart-kit.js';

/**
 * Plain ES5-style JavaScript, no build step. Every string from the run (model output, error bodies, class names,
 * config values) reaches the DOM through textContent or ECharts' canvas text, never through innerHTML.
 */
export const DASHBOARD_JS = `(function () {
  'use strict';
  ${FIT_LEGEND_JS}
  var token = new URLSearchParams(location.search).get('token') || '';
  var q = '?token=' + encodeURIComponent(token);
  var $ = function (id) { return document.getElementById(id); };
  var MAX_POINTS = 3600;
  var charts = {};
  var points = [];
  var errorKinds = [];
  var knob = null;
  var ended = false;
  window.__tfUpdates = 0;

  function text(id, v) { $(id).textContent = v; }
  function fmt(v, d) { return v === null || v === undefined ? '-' : Number(v).toFixed(d === undefined ? 1 : d); }
  function cell(tag, v, cls) { var c = document.createElement(tag); c.textContent = v; if (cls) c.className = cls; return c; }
  function table(id, head, rows) {
    var t = $(id);
    t.textContent = '';
    var tr = document.createElement('tr');
    head.forEach(function (h) { tr.appendChild(cell('th', h)); });
    t.appendChild(tr);
    rows.forEach(function (r) {
      var row = document.createElement('tr');
      r.forEach(function (v, i) { row.appendChild(cell('td', v, typeof v === 'string' && i > 0 ? 'text' : '')); });
      t.appendChild(row);
    });
  }

  function initCharts(options) {
    Object.keys(options).forEach(function (id) {
      var el = $(id);
      if (!el) { console.error('tokenflood dashboard: no element for chart ' + id); return; }
      if (charts[id]) charts[id].dispose();
      charts[id] = echarts.init(el, null, { renderer: 'canvas' });
      charts[id].setOption(options[id]);
      tfFitLegend(charts[id]);
    });
    window.__tfCharts = Object.keys(charts).length;
  }
  window.addEventListener('resize', function () { Object.keys(charts).forEach(function (k) { charts[k].resize(); tfFitLegend(charts[k]); }); });

  function line(key) { return points.map(function (p) { return [p.t, p[key]]; }); }
  function draw() {
    var set = function (id, series) { if (charts[id]) charts[id].setOption({ series: series }); };
    set('c-rps', [{ data: line('rps') }]);
    set('c-tok', [{ data: line('out_tok_s') }]);
    set('c-inflight', [{ data: line('in_flight') }]);
    // The run's extra --percentiles follow p50 and p99 (the chart options name them).
    var extra = function (key) { return (points.length ? points[0][key] || [] : []).map(function (_, i) { return { data: points.map(function (p) { return [p.t, (p[key] || [])[i]]; }) }; }); };
    set('c-ttft', [{ data: line('ttft_p50') }, { data: line('ttft_p99') }].concat(extra('ttft_extra')));
    set('c-tpot', [{ data: line('tpot_p50') }, { data: line('tpot_p99') }].concat(extra('tpot_extra')));
    set('c-itl', [{ data: line('itl_p50') }, { data: line('itl_p99') }].concat(extra('itl_extra')));
    set('c-health', [{ data: line('lag_p99') }, { data: line('loop_delay_p99') }]);
    set('c-server', [{ data: line('server_running') }, { data: line('server_waiting') }]);
    // GPU utilization only once a GPU sample came (--gpu-metrics): no empty series in the legend.
    var hasGpu = points.some(function (p) { return p.gpu_util_pct !== null && p.gpu_util_pct !== undefined; });
    if (charts['c-kv']) charts['c-kv'].setOption({
      title: { text: hasGpu ? 'KV cache usage and GPU utilization' : 'KV cache usage' },
      legend: { data: hasGpu ? ['KV cache', 'GPU'] : ['KV cache'] },
      series: [{ data: line('kv_usage_pct') }, { data: hasGpu ? line('gpu_util_pct') : [] }],
    });
    if (charts['c-errors']) {
      charts['c-errors'].setOption({
        series: errorKinds.map(function (k) {
          return { name: k, type: 'line', stack: 'errors', areaStyle: {}, showSymbol: false, data: points.map(function (p) { return [p.t, p.errors[k] || 0]; }) };
        }),
      });
      tfFitLegend(charts['c-errors']);
    }
    window.__tfUpdates++;
  }

  function stats(rows) {
    // The median, p90, p99 and the run's extra --percentiles (Dist.extra), ascending.
    var cols = [{ p: 50, label: 'median', get: function (x) { return x.median; } }, { p: 90, label: 'p90', get: function (x) { return x.p90; } }, { p: 99, label: 'p99', get: function (x) { return x.p99; } }]
      .concat((rows.length ? rows[0].ttft.extra : []).map(function (e, i) { return { p: e.p, label: 'p' + e.p, get: function (x) { return x.extra[i].value; } }; }))
      .sort(function (a, b) { return a.p - b.p; });
    var head = function (m) { return cols.map(function (c) { return m + ' ' + c.label; }).concat([m + ' avg', m + ' min', m + ' max']); };
    table('stats', ['Name', 'Requests', 'Failures'].concat(head('TTFT'), head('E2E'), ['Output tok/s', 'Current RPS']),
      rows.map(function (r) {
        var d = function (x) { return cols.map(function (c) { return fmt(c.get(x)); }).concat([fmt(x.avg), fmt(x.min), fmt(x.max)]); };
        return [r.name, String(r.requests), String(r.failures)].concat(d(r.ttft), d(r.e2e), [fmt(r.output_tok_s), fmt(r.current_rps, 2)]);
      }));
  }
  function failures(rows) {
    table('failures', ['Kind', 'HTTP status', 'Message', 'Count', 'Last seen (s)'],
      rows.map(function (f) { return [f.kind, f.http_status === null ? '-' : String(f.http_status), f.message, String(f.count), fmt(f.last_seen_s)]; }));
  }
  function stages(list) {
    table('stages', ['Stage', 'Started (s)', 'Concurrency', 'Rate (req/s)'],
      list.map(function (s) { return [String(s.stage), fmt(s.started_at_ms / 1000), s.concurrency === null ? '-' : String(s.concurrency), s.rate === null ? '-' : String(s.rate)]; }));
  }
  function downloads(files) {
    var ul = $('downloads');
    ul.textContent = '';
    files.forEach(function (f) {
      var li = document.createElement('li');
      var a = document.createElement('a');
      a.href = f.path + q;
      a.textContent = f.label;
      if (f.download) a.setAttribute('download', '');
      else a.target = '_blank';
      a.rel = 'noopener noreferrer';
      li.appendChild(a);
      ul.appendChild(li);
    });
  }

  function onInit(d) {
    points = [];
    errorKinds = [];
    ended = false;
    initCharts(d.charts);
    text('target', d.title);
    text('config', JSON.stringify(d.config, null, 2));
    knob = d.knob;
    text('load-label', knob ? knob + (knob === 'rate' ? ' (req/s)' : ' (requests in flight)') : 'load: fixed by this run');
    $('load-value').disabled = !knob;
    $('load-apply').disabled = !knob;
    if (d.current && knob) $('load-value').value = d.current[knob];
    $('stop').disabled = false;
    text('state', 'running');
    stages(d.stages || []);
    downloads(d.files);
    if (d.rows) stats(d.rows);
    if (d.failures) failures(d.failures);
    if (d.totals) header(d.totals);
    if (d.ended) { ended = true; text('state', 'finished: ' + d.ended); $('stop').disabled = true; $('load-apply').disabled = true; window.__tfEnded = d.ended; }
  }
  function onTick(d) {
    var p = d.point;
    window.__tfLast = p;
    points.push(p);
    if (points.length > MAX_POINTS) points.shift();
    Object.keys(p.errors).forEach(function (k) { if (errorKinds.indexOf(k) < 0) errorKinds.push(k); });
    text('elapsed', fmt(p.t, 0) + ' s');
    text('done', String(p.done));
    text('failed', String(p.failed));
    text('inflight', String(p.in_flight));
    text('rps', fmt(p.rps, 2));
    text('stage', p.stage === null ? '-' : String(p.stage));
    stats(d.rows);
    failures(d.failures);
    if (d.stages) stages(d.stages);
    draw();
  }
  function header(t) {
    text('done', String(t.done));
    text('failed', String(t.failed));
    text('inflight', String(t.in_flight));
    text('elapsed', fmt(t.elapsed_s, 0) + ' s');
  }
  function onEnd(d) {
    ended = true;
    text('state', 'finished: ' + d.stopped_reason);
    if (d.totals) header(d.totals);
    $('stop').disabled = true;
    $('load-apply').disabled = true;
    stats(d.rows);
    failures(d.failures);
    if (d.stages) stages(d.stages);
    downloads(d.files);
    window.__tfEnded = d.stopped_reason;
    if (d.final) es.close();
  }

  function post(path, body) {
    return fetch(path + q, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body || {}) })
      .then(function (r) { return r.json().then(function (j) { return { ok: r.ok, body: j }; }); });
  }
  $('stop').addEventListener('click', function () {
    $('stop').disabled = true;
    post('/api/stop').then(function (r) { text('msg', r.ok ? 'stopping: no new requests; those in flight may finish' : String(r.body.error)); });
  });
  $('load-apply').addEventListener('click', function () {
    if (!knob) return;
    var body = {};
    body[knob] = Number($('load-value').value);
    post('/api/load', body).then(function (r) {
      text('msg', r.ok ? 'stage ' + r.body.stage + ': ' + knob + ' ' + r.body[knob] : String(r.body.error));
      if (r.ok) window.__tfStage = r.body.stage;
    });
  });
  Array.prototype.forEach.call(document.querySelectorAll('nav.tabs button'), function (b) {
    b.addEventListener('click', function () {
      Array.prototype.forEach.call(document.querySelectorAll('nav.tabs button'), function (x) { x.className = x === b ? 'on' : ''; });
      Array.prototype.forEach.call(document.querySelectorAll('.tab'), function (t) { t.className = t.id === b.getAttribute('data-tab') ? 'card tab on' : 'card tab'; });
    });
  });

  var es = new EventSource('/api/events' + q);
  var parse = function (f) { return function (e) { try { f(JSON.parse(e.data)); } catch (err) { console.error('tokenflood dashboard: ' + (err && err.message)); } }; };
  es.addEventListener('init', parse(onInit));
  es.addEventListener('tick', parse(onTick));
  es.addEventListener('end', parse(onEnd));
  es.addEventListener('stages', parse(stages));
  es.addEventListener('final', function () { ended = true; es.close(); });
  es.onerror = function () { if (ended || es.readyState === 2) { es.close(); text('state', ended ? $('state').textContent : 'disconnected'); } };
})();
`;
