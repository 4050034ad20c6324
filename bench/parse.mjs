// Parser microbench: CPU per event of SseParser + classifyData (the per-event work in execute.ts), no network.
// Usage: node bench/parse.mjs [dist]  → JSON with ns/event for one event per chunk and for 16 events per chunk.
// With a stream classifier in the build (chunk-scan.ts), a fresh one per stream is used, as response-body.ts does.
const DIST = new URL(process.argv[2] ? `file://${process.argv[2].replace(/\/?$/, '/')}` : '../dist/', import.meta.url);
const { SseParser } = await import(new URL('backends/sse.js', DIST).href);
const common = await import(new URL('backends/openai-common.js', DIST).href);

const EVENT =
  'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"bench","choices":[{"index":0,"delta":{"content":" token"},"finish_reason":null}]}\n\n';

/** ns of CPU per event when `perChunk` events arrive in each chunk (the same pipeline as execute.ts). */
export function parseNsPerEvent(perChunk, events = 400_000) {
  const chunk = Buffer.from(EVENT.repeat(perChunk));
  const chunks = events / perChunk;
  let count = 0;
  let chars = 0;
  const times = [];
  const classifyData = common.streamClassifier?.() ?? common.classifyData;
  const parser = new SseParser((ev) => {
    if (ev.type === 'data') {
      const info = classifyData(ev.data);
      times.push(0);
      chars += info.answer.length;
      count++;
    }
  });
  for (let w = 0; w < 2; w++) {
    const t0 = process.cpuUsage();
    for (let i = 0; i < chunks; i++) {
      // A fresh Buffer per read, like a socket gives: the parser must not assume it owns the memory.
      parser.push(Buffer.from(chunk));
      if (times.length > 1000) times.length = 0;
    }
    const c = process.cpuUsage(t0);
    if (w === 1) return { perChunk, nsPerEvent: ((c.user + c.system) * 1000) / chunks / perChunk, count, chars };
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify([parseNsPerEvent(1), parseNsPerEvent(16)]));
}
