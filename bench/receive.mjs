// Receive-path microbench: CPU per streamed event above the kernel, for one or two builds of executeRequest.
//
// `node bench/receive.mjs <dist> [<distB>]` → µs of CPU per event for: undici's HTTP/1 parser, the request's
// handler, the SSE parser, classifyData and the record bookkeeping. The socket is an in-memory Duplex that answers
// every request with a chunked text/event-stream of EVENTS OpenAI chunks, one chunk per read (each pushed on its
// own setImmediate turn, as separate TCP segments would arrive). No kernel, no second process, no network: the
// figure moves only with the code, so two builds can be compared on a shared machine (blocks interleaved A, B, A, …).
// The setImmediate turn per event is included in the figure; it is the same for every build.
import { Client } from 'undici';
import { Duplex } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const dists = process.argv.slice(2);
if (dists.length === 0) {
  console.error('usage: node bench/receive.mjs <dist> [<distB>]');
  process.exit(2);
}
const EVENTS = 100;
const BLOCK_REQUESTS = 200; // 20,000 events per block
const BLOCKS = Number(process.env.RECEIVE_BLOCKS ?? 10);

const ev = (i) =>
  `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"bench","choices":[{"index":0,"delta":{"content":" tok${i}"},"finish_reason":null}]}\n\n`;
const chunked = (s) => `${Buffer.byteLength(s).toString(16)}\r\n${s}\r\n`;
const HEAD = 'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: keep-alive\r\ntransfer-encoding: chunked\r\n\r\n';
const FRAMES = [HEAD, ...Array.from({ length: EVENTS }, (_, i) => chunked(ev(i))), chunked(`data: {"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":${EVENTS}}}\n\ndata: [DONE]\n\n`) + '0\r\n\r\n'].map((s) => Buffer.from(s));

/** A socket whose peer answers each complete request (headers + content-length body) with FRAMES. */
function fakeSocket() {
  let pending = '';
  const sock = new Duplex({
    read() {},
    write(chunk, _enc, done) {
      pending += chunk.toString('latin1');
      const h = pending.indexOf('\r\n\r\n');
      const len = Number(/content-length: (\d+)/i.exec(pending)?.[1] ?? 0);
      if (h >= 0 && pending.length >= h + 4 + len) {
        pending = '';
        let i = 0;
        const next = () => {
          sock.push(FRAMES[i++]);
          if (i < FRAMES.length) setImmediate(next);
        };
        setImmediate(next);
      }
      done();
    },
  });
  return sock;
}

const builds = await Promise.all(dists.map(async (d) => (await import(pathToFileURL(resolve(d, 'backends/execute.js')).href)).executeRequest));
const client = new Client('http://bench.invalid', { connect: (_o, cb) => setImmediate(cb, null, fakeSocket()), pipelining: 1, keepAliveTimeout: 60_000 });
const now = () => performance.now();
const body = JSON.stringify({ model: 'bench', messages: [{ role: 'user', content: 'hi' }], max_tokens: EVENTS, stream: true });

async function block(exec) {
  const c0 = process.cpuUsage();
  let events = 0;
  for (let r = 0; r < BLOCK_REQUESTS; r++) {
    const res = await exec({
      id: r, warmup: false, cls: undefined, url: 'http://bench.invalid/v1/chat/completions', headers: { 'content-type': 'application/json' }, body,
      stream: true, expectedInputTokens: 1, maxTokens: EVENTS, scheduledAtMs: 0, timeoutMs: 600_000, dispatcher: client, now,
    });
    if (res.raw.status !== 'ok') throw new Error(`request failed: ${res.raw.status} ${res.raw.error}`);
    events += res.raw.event_times_ms.length;
  }
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / events;
}

for (const b of builds) await block(b); // warm up: JIT, connection
const results = builds.map(() => []);
for (let k = 0; k < BLOCKS; k++) for (let b = 0; b < builds.length; b++) results[(k % 2 === 0 ? b : builds.length - 1 - b)].push(await block(builds[k % 2 === 0 ? b : builds.length - 1 - b]));
await client.close();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const out = results.map((xs, i) => ({ dist: dists[i], usPerEventMedian: median(xs), min: Math.min(...xs), max: Math.max(...xs) }));
for (const o of out) console.log(`${o.dist}: ${o.usPerEventMedian.toFixed(3)} µs/event (median of ${BLOCKS} blocks; min ${o.min.toFixed(3)}, max ${o.max.toFixed(3)})`);
if (out.length === 2) console.log(`(B − A) / A = ${(((out[1].usPerEventMedian - out[0].usPerEventMedian) / out[0].usPerEventMedian) * 100).toFixed(1)} %`);
