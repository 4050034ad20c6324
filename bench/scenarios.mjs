// Bench scenarios: rising closed-loop stream counts, a two-process split, the whole run() closed (one and two worker
// threads) and open loop.
// Emitter: one content event every 20 ms per stream (50 tok/s, a typical decode speed); 2,000 streams = 100k events/s.
const stream = (n, extra = {}) => ({
  kind: 'streams',
  streams: n,
  tokens: 100,
  warmMs: n >= 1000 ? 3500 : 2500,
  windowMs: 4000,
  rampMs: n >= 1000 ? 2000 : n > 1 ? 1000 : 0,
  ...extra,
});
const openLoop = (rate) => ({
  name: `open${rate}`,
  title: `run(), open loop ${rate} req/s (constant arrival), 20 tokens × 20 ms`,
  target: { rate },
  emitter: { intervalMs: 20 },
  client: { kind: 'run', config: { rate, requests: rate * 4, inputTokens: 128, outputTokens: 20 } },
});

export const SCENARIOS = [
  { name: 'floor', title: '1 stream: the loopback floor', emitter: { intervalMs: 20 }, client: stream(1) },
  { name: 's64', title: '64 streams', emitter: { intervalMs: 20 }, client: stream(64) },
  { name: 's256', title: '256 streams', emitter: { intervalMs: 20 }, client: stream(256) },
  { name: 's512', title: '512 streams', emitter: { intervalMs: 20 }, client: stream(512) },
  { name: 's1000', title: '1,000 streams', emitter: { intervalMs: 20 }, client: stream(1000) },
  { name: 's2000', title: '2,000 streams (100k events/s offered)', emitter: { intervalMs: 20 }, client: stream(2000) },
  { name: 's2000x2', title: '2,000 streams split over 2 client processes', split: 2, emitter: { intervalMs: 20 }, client: stream(2000) },
  {
    name: 'run512',
    title: 'run(), closed loop 512, 100 tokens × 20 ms, 5 s',
    emitter: { intervalMs: 20 },
    client: { kind: 'run', config: { concurrency: 512, duration: 5, inputTokens: 128, outputTokens: 100 } },
  },
  // --workers: the whole tool at 2,000 streams on one thread, then on two (each with its own HTTP pool).
  ...[1, 2].map((workers) => ({
    name: `run2000w${workers}`,
    title: `run(), closed loop 2,000, --workers ${workers}, 100 tokens × 20 ms, 6 s`,
    emitter: { intervalMs: 20 },
    client: { kind: 'run', config: { concurrency: 2000, duration: 6, inputTokens: 128, outputTokens: 100, workers } },
  })),
  openLoop(100),
  openLoop(500),
  openLoop(1000),
];
