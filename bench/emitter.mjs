// Bench emitter: a minimal OpenAI-compatible streaming server (own process) that stamps every event with its send time.
//
// Run as a child process: `node bench/emitter.mjs '{"intervalMs":20,"batch":1}'`; it reports
// {type:'ready', port} over IPC, answers {type:'stats'} with its CPU use and event count, exits on 'stop'.
// Each stream sends max_tokens content events (one every intervalMs from the moment the request arrived,
// `batch` events per socket write), then a usage chunk and [DONE]. Every content event carries the server's
// send time on the shared clock (performance.timeOrigin + performance.now(), ms) as `delta.content` = "<stamp>|",
// so a client can read the stamps back from the answer text. All streams are served from one 1 ms tick.
import { createServer } from 'node:http';

const opts = { intervalMs: 20, batch: 1, port: 0, ...JSON.parse(process.argv[2] ?? '{}') };
const ORIGIN = performance.timeOrigin;
const HEAD = '{"id":"b","object":"chat.completion.chunk","created":0,"model":"bench","choices":[{"index":0,"delta":{"content":"';
const TAIL = '|"},"finish_reason":null}]}';

/** Active streams, each { res, left, due, tokens }. */
let streams = [];
let events = 0;
let requests = 0;
const cpu0 = process.cpuUsage();
const t0 = performance.now();

function finish(s) {
  s.res.write(
    `data: {"id":"b","object":"chat.completion.chunk","created":0,"model":"bench","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":${s.tokens},"total_tokens":${s.tokens + 1}}}\n\ndata: [DONE]\n\n`,
  );
  s.res.end();
}

function tick() {
  const now = performance.now();
  let keep = 0;
  for (let i = 0; i < streams.length; i++) {
    const s = streams[i];
    if (s.closed) continue;
    if (s.due <= now) {
      const n = Math.min(opts.batch, s.left);
      let out = '';
      // Stamp at write time: the moment the bytes are handed to the kernel (socket writes are synchronous when writable).
      const stamp = (ORIGIN + performance.now()).toFixed(4);
      for (let k = 0; k < n; k++) out += `data: ${HEAD}${stamp}${TAIL}\n\n`;
      s.res.write(out);
      events += n;
      s.left -= n;
      s.due += opts.intervalMs * n;
      if (s.left === 0) {
        finish(s);
        continue;
      }
    }
    streams[keep++] = s;
  }
  streams.length = keep;
}
setInterval(tick, 1);

const server = createServer({ keepAliveTimeout: 120_000, requestTimeout: 0, headersTimeout: 0 }, (req, res) => {
  if (req.method === 'GET' && req.url === '/v1/models') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"object":"list","data":[{"id":"bench","object":"model"}]}');
    return;
  }
  if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
    res.writeHead(404).end();
    return;
  }
  const parts = [];
  req.on('data', (c) => parts.push(c));
  req.on('end', () => {
    let maxTokens = 16;
    try {
      maxTokens = Math.max(1, JSON.parse(Buffer.concat(parts).toString()).max_tokens ?? 16);
    } catch {
      /* default */
    }
    requests++;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    const s = { res, left: maxTokens, tokens: maxTokens, due: performance.now() + opts.intervalMs, closed: false };
    res.on('close', () => (s.closed = true));
    streams.push(s);
  });
});
server.listen({ host: '127.0.0.1', port: opts.port, backlog: 4096 }, () => {
  process.send?.({ type: 'ready', port: server.address().port });
});

process.on('message', (m) => {
  if (m?.type === 'stats') {
    const c = process.cpuUsage(cpu0);
    process.send?.({ type: 'stats', cpuMs: (c.user + c.system) / 1000, wallMs: performance.now() - t0, events, requests, open: streams.length });
  } else if (m?.type === 'stop') {
    server.closeAllConnections?.();
    server.close();
    process.exit(0);
  }
});
process.on('disconnect', () => process.exit(0));
