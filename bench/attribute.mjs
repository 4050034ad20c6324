// Attribute a `node --cpu-prof` profile of a run to the stages of the client (issue 30): CPU ms and % per stage.
// Usage: node bench/attribute.mjs <file.cpuprofile> [--events N] [--json]
// Each sample goes to the innermost frame of tokenflood's own code (dist/ or src/) on its stack; samples with no such
// frame go by their own (Node-internal) frame. GC, idle and "(program)" (V8/libuv outside JavaScript) are their own rows.
import { readFileSync } from 'node:fs';

/** [stage, test on "functionName url"], first match wins; tested from the innermost tokenflood frame outward. */
const OWN_RULES = [
  ['SSE split', /\/backends\/(sse|line-splitter|ndjson)\.js/],
  ['chunk JSON (parse or scan) + classify', /\/backends\/(openai-common|openai-chat|openai-completions|content|usage|chunk-scan)\.js/],
  ['bytes/HTTP (h1 parser, pool)', /\/backends\/h1\//],
  ['request bookkeeping (execute, lifecycle, scheduler)', /\/(backends|lifecycle|scheduler)\/|\/run\.js/],
  ['records/JSONL writing', /\/metrics\/(jsonl|derive|record)\.js|record-writer|\/lifecycle\/files/],
  ['live display/progress', /\/(ui|cli\/progress|metrics\/live|report\/live)/],
  ['health monitor', /\/metrics\/(health|saturation)\.js|saturation-watch/],
  ['aggregation (per request)', /\/metrics\/(aggregator|steady-state|slices|sessions|stats)\.js/],
  ['summary/report (after the run)', /\/(report|metrics|merge|runs)\//],
  ['prompt synthesis', /\/dataset\//],
  ['start-up (config, CLI)', /\/(config|cli|util)\//],
];
/** Samples whose stack has no tokenflood frame. */
const NODE_RULES = [
  ['start-up (module loading)', /internal\/modules|compileSourceTextModule|internal\/bootstrap|^\(root\)/],
  ['bytes/HTTP (socket reads/writes)', /onStreamRead|stream_base_commons|\bnet[:\s]|afterConnect|internalConnect|writeGeneric|writev|^read |^writeBuffer|^writeUtf8String/],
  ['timers', /timers|processTimers|listOnTimeout/],
];

export function attribute(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // The streaming phase runs from the first to the last sample with the SSE parser on its stack.
  const onStack = (id, re) => {
    for (let n = id; n !== undefined; n = parent.get(n)) if (re.test(byId.get(n).callFrame.url)) return true;
    return false;
  };
  const streaming = profile.samples.map((id) => onStack(id, /\/backends\/sse\.js/));
  const first = streaming.indexOf(true);
  const last = streaming.lastIndexOf(true);
  const ms = new Map();
  const phaseMs = { 'start-up': 0, streaming: 0, 'after the run': 0 };
  let total = 0;
  const add = (k, v) => ms.set(k, (ms.get(k) ?? 0) + v);
  profile.samples.forEach((id, i) => {
    const dt = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    total += dt;
    const idle = byId.get(id).callFrame.functionName === '(idle)';
    if (!idle) phaseMs[i < first || first < 0 ? 'start-up' : i > last ? 'after the run' : 'streaming'] += dt;
    const leaf = byId.get(id).callFrame;
    if (leaf.functionName === '(idle)') return add('idle', dt);
    if (leaf.functionName === '(garbage collector)') return add('GC', dt);
    if (leaf.functionName === '(program)') return add('runtime (program)', dt);
    for (let n = id; n !== undefined; n = parent.get(n)) {
      const f = byId.get(n).callFrame;
      if (!/\/(dist|src)\//.test(f.url) || f.url.includes('node_modules')) continue;
      const key = `${f.functionName} ${f.url}`;
      const rule = OWN_RULES.find(([, re]) => re.test(key));
      return add(rule ? rule[0] : 'other tokenflood code', dt);
    }
    for (let n = id; n !== undefined; n = parent.get(n)) {
      const f = byId.get(n).callFrame;
      const key = `${f.functionName} ${f.url.replace(/^node:/, '')}`;
      const rule = NODE_RULES.find(([, re]) => re.test(key));
      if (rule) return add(rule[0], dt);
    }
    add(`other Node (${leaf.functionName || 'anonymous'})`, dt);
  });
  return { totalMs: total, phaseMs, stages: [...ms.entries()].sort((a, b) => b[1] - a[1]) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const files = process.argv.slice(2).filter((a) => a.endsWith('.cpuprofile'));
  const ei = process.argv.indexOf('--events');
  const events = ei > 0 ? Number(process.argv[ei + 1]) : 0;
  const sum = new Map();
  let wall = 0;
  for (const f of files) {
    const r = attribute(JSON.parse(readFileSync(f, 'utf8')));
    wall += r.totalMs;
    console.error(`${f}: busy ms by phase ${JSON.stringify(r.phaseMs)}`);
    for (const [k, v] of r.stages) sum.set(k, (sum.get(k) ?? 0) + v);
  }
  const busy = [...sum.entries()].filter(([k]) => k !== 'idle').reduce((a, [, v]) => a + v, 0);
  const rows = [...sum.entries()].sort((a, b) => b[1] - a[1]);
  if (process.argv.includes('--json')) console.log(JSON.stringify({ busyMs: busy, rows }));
  else {
    console.log(`busy ${busy.toFixed(0)} ms of ${wall.toFixed(0)} ms sampled${events ? `, ${((busy * 1000) / events).toFixed(1)} µs/event` : ''}`);
    for (const [k, v] of rows) {
      if (k === 'idle') continue;
      const per = events ? `  ${((v * 1000) / events).toFixed(2).padStart(6)} µs/ev` : '';
      console.log(`${v.toFixed(0).padStart(7)} ms ${((v / busy) * 100).toFixed(1).padStart(5)} %${per}  ${k}`);
    }
  }
}
