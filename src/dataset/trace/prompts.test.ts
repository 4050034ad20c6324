import { describe, it, expect } from 'vitest';
import { join } from 'node:path';
import { loadTokenizer } from '../tokenizer.js';
import { loadTrace } from './registry.js';
import { createPromptSynth } from './prompts.js';

const slice = join(__dirname, '..', '..', '..', 'data', 'traces', 'mooncake-conversation-200.jsonl');

describe('token-exact prompts from hash_ids', () => {
  const tok = loadTokenizer();
  const synth = createPromptSynth({ tok, blockSize: 512, seed: 1, traceId: 'mooncake-conversation' });

  // Re-tokenizing runs at ~200k tokens/s here, so the test checks every 8th request of the 200-line slice (25 prompts,
  // ~200k tokens, the block boundaries of ~400 blocks); bench/trace-prompts.mjs checks every prompt of the slice and the full trace.
  it('prompts of the Mooncake slice re-tokenize to exactly their tokens and input_length (default tokenizer)', () => {
    const { requests } = loadTrace(slice);
    let tokens = 0;
    let boundaries = 0;
    for (const r of requests.filter((x) => x.index % 8 === 0)) {
      expect(synth.verify(r), r.source).toBeUndefined();
      tokens += r.inputLength;
      boundaries += r.hashIds!.length - 1;
    }
    expect(tokens).toBeGreaterThan(150_000);
    expect(boundaries).toBeGreaterThan(300);
  });

  it('equal ids give equal blocks, different ids different ones; a partial last block is the start of the full one', () => {
    const a = synth.tokens({ index: 0, inputLength: 1024, hashIds: [7, 8] });
    const b = synth.tokens({ index: 1, inputLength: 1024 + 100, hashIds: [7, 9, 8] });
    expect(a.slice(0, 512)).toEqual(b.slice(0, 512));
    expect(a.slice(512)).not.toEqual(b.slice(512, 1024));
    expect(b.slice(1024)).toEqual(a.slice(512, 612));
    // Neighbouring ids (and ids past 2^32) never share a block.
    const seen = new Set<string>();
    for (const h of [0, 1, 2, 4095, 4096, 2 ** 32, 2 ** 32 + 1, Number.MAX_SAFE_INTEGER]) seen.add(synth.tokens({ index: 0, inputLength: 512, hashIds: [h] }).join(','));
    expect(seen.size).toBe(8);
  });

  it('fresh tokens fill the tail past the listed ids, different per request; the text is deterministic from (trace, seed)', () => {
    const r = { index: 3, inputLength: 700, hashIds: [1] };
    const t = synth.tokens(r);
    expect(t).toHaveLength(700);
    expect(t.slice(512)).not.toEqual(synth.tokens({ ...r, index: 4 }).slice(512));
    expect(synth.verify(r)).toBeUndefined();
    expect(createPromptSynth({ tok, blockSize: 512, seed: 1, traceId: 'mooncake-conversation' }).text(r)).toBe(synth.text(r));
    expect(createPromptSynth({ tok, blockSize: 512, seed: 2, traceId: 'mooncake-conversation' }).text(r)).not.toBe(synth.text(r));
    expect(createPromptSynth({ tok, blockSize: 512, seed: 1, traceId: 'other' }).text(r)).not.toBe(synth.text(r));
  });

  it('works with o200k_base and small blocks too', () => {
    const o = createPromptSynth({ tok: loadTokenizer('o200k_base'), blockSize: 16, seed: 0, traceId: 'bailian' });
    for (const r of [{ index: 0, inputLength: 521, hashIds: Array.from({ length: 33 }, (_, i) => i) }, { index: 1, inputLength: 3 }]) expect(o.verify(r)).toBeUndefined();
  });

  it('verify says what differs when the text is not the tokens', () => {
    expect(synth.verify({ index: 0, inputLength: 10, hashIds: [1] }, 'hello world')).toMatch(/re-tokenizes to 2 tokens, not input_length 10/);
  });
});
