// Probe interleaving and the per-level test against idle, on plain objects (no server).
import { describe, it, expect } from 'vitest';
import { loadTokenizer } from '../dataset/tokenizer.js';
import type { Workload } from '../dataset/workload-types.js';
import type { RequestRecord } from '../metrics/record.js';
import type { RequestSpec } from '../dataset/types.js';
import { createEvalWorkload } from './workload.js';
import { levelAgainstIdle, withProbes } from './under-load.js';
import { loadEvalSet } from './sets.js';
import { promptLengthBucket, summarizeEval } from './summary.js';

const tok = loadTokenizer('cl100k_base');
const set = loadEvalSet('gsm8k');
set.items = set.items.slice(0, 5);
const probes = () => createEvalWorkload({ set, items: set.items, shots: 0, repeat: 1, maxTokens: 64, grading: { mode: 'numeric' }, tokenizer: tok, redact: (s) => s, cls: 'eval' });
const load: Workload = { next: (): RequestSpec => ({ messages: [{ role: 'user', content: 'x' }], prompt: 'x', inputTokens: 1, maxTokens: 8 }), describe: () => ({ kind: 'synthetic' }) };
const rec = (id: number) => ({ id, status: 'ok' }) as unknown as RequestRecord;

describe('withProbes', () => {
  it('makes every 2nd request after warmup a probe while items last; answers reach the probe workload with the level', () => {
    const p = probes();
    const w = withProbes(load, p, 2, 'c8');
    const kinds = Array.from({ length: 16 }, (_, i) => ((w.next(i) as RequestSpec).natural ? 'P' : '.')).join('');
    expect(kinds).toBe('...P.P.P.P.P....');
    for (let i = 0; i < 16; i++) {
      const spec = w.next(i) as RequestSpec;
      w.complete!({ spec, ok: true, answerText: spec.natural ? `Answer: ${set.items[(i - 3) / 2].answer}` : 'filler', reasoningText: '', record: rec(i) });
    }
    const out = p.outcomes();
    expect(out.map((x) => [x.item.id, x.level, x.verdict.correct])).toEqual(set.items.map((it) => [it.id, 'c8', true]));
  });
});

describe('levelAgainstIdle', () => {
  it('pairs by item and tests the discordant ones', () => {
    const mk = (correct: boolean[]) => {
      const p = probes();
      correct.forEach((c, i) => p.completeProbe(i, { spec: p.spec(i)!, ok: true, answerText: c ? set.items[i].answer : '-1', reasoningText: '', record: rec(i) }));
      return p.outcomes();
    };
    const idle = mk([true, true, true, true, true]);
    const l = levelAgainstIdle(mk([false, false, false, false, false]), idle);
    // 5 lost, 0 gained: p = 2 / 32.
    expect(l).toMatchObject({ lost: 5, gained: 0, delta_points: -100, p_value: 0.0625, significant: false });
    expect(levelAgainstIdle(idle, idle)).toMatchObject({ lost: 0, gained: 0, p_value: 1, significant: false });
  });
});

describe('summary', () => {
  it('buckets prompt lengths by powers of two', () => {
    expect([1, 127, 128, 255, 256, 1023, 4095, 4096].map(promptLengthBucket)).toEqual(['<128', '<128', '128-255', '128-255', '256-511', '512-1023', '2048-4095', '≥4096']);
  });
  it('counts accuracy on the first pass and consistency over all passes', () => {
    const p = createEvalWorkload({ set, items: set.items.slice(0, 2), shots: 0, repeat: 2, maxTokens: 64, grading: { mode: 'numeric' }, tokenizer: tok, redact: (s) => s });
    const answers = [set.items[0].answer, '-7', set.items[0].answer, '-8'];
    answers.forEach((a, i) => p.complete!({ spec: p.next(i) as RequestSpec, ok: true, answerText: a, reasoningText: '', record: rec(i) }));
    const s = summarizeEval('gsm8k', 'numeric', p.outcomes(), 2);
    expect(s.overall).toMatchObject({ correct: 1, total: 2 });
    expect(s.consistency).toMatchObject({ items: 2, identical_share: 0.5, identical_extracted_share: 0.5 });
  });
});
