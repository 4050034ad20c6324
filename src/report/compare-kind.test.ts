import { describe, it, expect } from 'vitest';
import { kindWarnings, runKind } from './compare-kind.js';

const run = (extra: Record<string, unknown> = {}, config: Record<string, unknown> = { concurrency: 8 }) => ({
  model: 'm',
  endpoint: 'chat',
  stream: true,
  tokenizer: 'cl100k_base',
  sim_time_scale: null,
  workload: { kind: 'synthetic', input_tokens: '256', output_tokens: '128', prefix_tokens: 0, corpus: 'en' },
  config,
  ...extra,
});

describe('kindWarnings', () => {
  it('is silent for the same settings', () => {
    expect(kindWarnings(runKind(run()), runKind(run()))).toEqual([]);
  });
  it('names every difference in kind, baseline first', () => {
    const w = kindWarnings(
      runKind(run()),
      runKind(run({ endpoint: 'completions', stream: false, tokenizer: 'o200k_base', sim_time_scale: 20 }, { rate: 2 })),
    );
    expect(w).toHaveLength(6);
    expect(w[0]).toMatch(/^time scale differs: baseline real time .*, candidate 20x real time/);
    expect(w[1]).toMatch(/^baseline ran on .*, candidate against a simulated server: one side is a simulator/);
    expect(w.join('\n')).toMatch(/endpoint differs: baseline "chat", candidate "completions"/);
    expect(w.join('\n')).toMatch(/streaming differs: baseline true, candidate false/);
    expect(w.join('\n')).toMatch(/tokenizer differs/);
    expect(w.join('\n')).toMatch(/load differs: baseline "concurrency 8", candidate "rate 2 req\/s"/);
  });
  it('does not compare what one side does not record (older results)', () => {
    expect(kindWarnings(runKind(run()), runKind({ config: { concurrency: 8 } }))).toEqual([]);
  });
  it('sweeps compare the varied quantity, not one level', () => {
    expect(kindWarnings(runKind(run({}, { concurrency: 1 }), 'concurrency'), runKind(run({}, { concurrency: 2 }), 'concurrency'))).toEqual([]);
    expect(kindWarnings(runKind(run(), 'concurrency'), runKind(run(), 'rate'))).toEqual(['load differs: baseline "by concurrency", candidate "by rate"']);
  });
  it('treats a 1x simulator and a real server as the same clock, and says one side is a simulator', () => {
    const sim = runKind(run({ sim_time_scale: 1, embedded_server: true, target_url: 'http://127.0.0.1:4001' }));
    const real = runKind(run({ sim_time_scale: null, embedded_server: false, target_url: 'http://127.0.0.1:9000' }));
    const w = kindWarnings(sim, real);
    expect(w.join('\n')).not.toMatch(/time scale/);
    expect(w).toEqual([
      'baseline ran on the embedded simulated server, candidate against http://127.0.0.1:9000 (not a tokenflood simulator): one side is a simulator, so the deltas compare a model of a server with a measured one',
    ]);
    // Two simulators at 1x, or two real servers: nothing to say about the clock or the server kind.
    expect(kindWarnings(sim, runKind(run({ sim_time_scale: 1, embedded_server: true })))).toEqual([]);
    expect(kindWarnings(real, runKind(run({ sim_time_scale: null, target_url: 'http://127.0.0.1:9001' })))).toEqual([]);
    // A 5x simulator against a real server differs in clock as well.
    expect(kindWarnings(real, runKind(run({ sim_time_scale: 5 })))[0]).toMatch(/^time scale differs: baseline real time .*, candidate 5x real time/);
  });
});
