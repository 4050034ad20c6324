// Transport bench client (own process): N closed-loop SSE streams over one of three transports, measuring itself.
//
// `node --expose-gc bench/h1/client.mjs '<scenario json>'` prints one JSON line. scenario.driver picks the transport:
//   request   undici request() + body.on('data')      (the Readable path execute.ts used first)
//   dispatch  undici dispatch() with a handler         (what execute.ts uses now)
//   h1        H1Pool (dist/backends/h1), reads into one shared buffer (net onread)
//   h1data    H1Pool with a fresh Buffer per read ('data' events): isolates what the shared buffer saves
// Every driver does the same per-chunk and per-event work as execute.ts: one timestamp per chunk, SseParser,
// classifyData per event, the event time and kind kept, answer text kept. Stamps are checked after each stream
// as bench/client.mjs does (raw error = client time − server stamp, loopback floor not subtracted).
import { Agent, request } from 'undici';
import { availableParallelism, cpus } from 'node:os';
import { SseParser } from '../../dist/backends/sse.js';
import { classifyData } from '../../dist/backends/openai-common.js';
import { H1Pool } from '../../dist/backends/h1/index.js';
import { startHealthMonitor } from '../../dist/metrics/health.js';
import { summarize, sleep, measureWindow } from '../stats.mjs';

const sc = JSON.parse(process.argv[2]);
const { port, streams: n, tokens, warmMs, windowMs, rampMs, driver } = sc;
const origin = `http://127.0.0.1:${port}`;
const path = '/v1/chat/completions';
const headers = { 'content-type': 'application/json' };
const body = JSON.stringify({
  model: 'bench',
  messages: [{ role: 'user', content: 'x '.repeat(1000) }],
  max_tokens: tokens,
  stream: true,
  stream_options: { include_usage: true },
});

/** One stream's bookkeeping, as execute.ts keeps it. */
function newStream(now, sentAt) {
  const st = { times: [], kinds: '', answer: [], t: 0, status: 0, error: null };
  st.parser = new SseParser((ev) => {
    if (ev.type === 'comment') {
      st.times.push(st.t);
      st.kinds += 'c';
      return;
    }
    const info = classifyData(ev.data);
    st.times.push(st.t);
    st.kinds += info.kind;
    if (info.answer) st.answer.push(info.answer);
  });
  st.chunk = (c) => {
    st.t = now() - sentAt;
    st.parser.push(c);
  };
  st.end = () => {
    st.t = now() - sentAt;
    st.parser.end();
  };
  return st;
}

const agent = driver === 'request' || driver === 'dispatch' ? new Agent({ connections: n, pipelining: 1, keepAliveTimeout: 60_000, keepAliveMaxTimeout: 600_000 }) : null;
const pool = driver === 'h1' || driver === 'h1data' ? new H1Pool(origin, { connections: n, keepAliveMs: 60_000, sharedReadBuffer: driver === 'h1' }) : null;

const DRIVERS = {
  async request(st) {
    const res = await request(origin + path, { method: 'POST', headers, body, dispatcher: agent, headersTimeout: 0, bodyTimeout: 0 });
    st.status = res.statusCode;
    await new Promise((resolve, reject) => {
      res.body.on('data', st.chunk);
      res.body.on('end', () => (st.end(), resolve()));
      res.body.on('error', reject);
    });
  },
  dispatch(st) {
    return new Promise((resolve, reject) => {
      agent.dispatch(
        { origin, path, method: 'POST', headers, body, headersTimeout: 0, bodyTimeout: 0 },
        {
          onRequestStart() {},
          onResponseStart(_c, status) {
            st.status = status;
          },
          onResponseData(_c, chunk) {
            st.chunk(chunk);
          },
          onResponseEnd() {
            st.end();
            resolve();
          },
          onResponseError(_c, err) {
            reject(err);
          },
        },
      );
    });
  },
  h1(st) {
    return new Promise((resolve, reject) => {
      pool.request(
        { method: 'POST', path, headers, body },
        {
          onHeaders(status) {
            st.status = status;
          },
          onData: st.chunk,
          onEnd() {
            st.end();
            resolve();
          },
          onError: reject,
        },
      );
    });
  },
};
DRIVERS.h1data = DRIVERS.h1;

const errs = new Float64Array(4_000_000);
let nErr = 0;
let events = 0;
let failed = 0;
let requests = 0;
const t0 = performance.now();
const now = () => performance.now() - t0;
const base = performance.timeOrigin + t0;
const win = { start: Infinity, end: Infinity };
let stopping = false;

async function one() {
  const sentAt = now();
  const st = newStream(now, sentAt);
  try {
    await DRIVERS[driver](st);
  } catch (e) {
    failed++;
    if (failed < 5) console.error(`${driver}: ${e.code ?? ''} ${e.message}`);
    return;
  }
  requests++;
  const stamps = st.answer.join('').split('|');
  let s = 0;
  for (let i = 0; i < st.kinds.length; i++) {
    if (st.kinds[i] !== 'a') continue;
    const tc = sentAt + st.times[i];
    const stamp = Number(stamps[s++]);
    if (tc < win.start || tc >= win.end) continue;
    events++;
    if (nErr < errs.length) errs[nErr++] = base + tc - stamp;
  }
}

const workers = Array.from({ length: n }, async (_, i) => {
  await sleep((rampMs * i) / n);
  while (!stopping) await one();
});
await sleep(warmMs);
const { cpu, machineBusy, h } = await measureWindow(now, windowMs, win, startHealthMonitor);
stopping = true;
await Promise.all(workers);
await (agent ?? pool).close();

const wall = win.end - win.start;
const cpuMs = (cpu.user + cpu.system) / 1000;
const cores = availableParallelism();
process.stdout.write(
  JSON.stringify({
    driver,
    streams: n,
    events,
    eventsPerS: (events / wall) * 1000,
    cpuMs,
    cpuSystemMs: cpu.system / 1000,
    wallMs: wall,
    cpuPctOneCore: (cpuMs / wall) * 100,
    cpuUsPerEvent: events ? (cpuMs * 1000) / events : null,
    machineBusyPct: machineBusy,
    requests,
    failed,
    rawErrorMs: summarize(Array.from(errs.subarray(0, nErr))),
    health: h,
    machine: { cpu: cpus()[0]?.model, cores, node: process.version },
  }) + '\n',
);
process.exit(0);
