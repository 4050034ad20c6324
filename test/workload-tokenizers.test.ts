// Real tokenizers: two Hugging Face tokenizer.json files built here (byte-level BPE and WordPiece) next to the built-in encodings.
import { describe, it, expect, beforeAll, afterEach } from 'vitest';
import { join } from 'node:path';
import { loadTokenizer, type Tokenizer } from '../src/dataset/tokenizer.js';
import { textOfTokens, nonce } from '../src/dataset/synthetic.js';
import { corpusText } from '../src/dataset/corpus.js';
import { createRng } from '../src/util/rng.js';
import { run } from '../src/run.js';
import { writeByteBpeTokenizer, writeWordPieceTokenizer, startEchoServer } from './workload-fixtures.js';
import type { ScriptServer } from './fixtures/script-server.js';
import { tmpDir } from './helpers.js';

let bpeDir: string;
let wpDir: string;
beforeAll(() => {
  const d = tmpDir();
  const text = corpusText('en') + corpusText('zh');
  bpeDir = writeByteBpeTokenizer(join(d, 'bpe'), text, 250);
  wpDir = writeWordPieceTokenizer(join(d, 'wordpiece'), text);
});
let server: ScriptServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('tokenizers', () => {
  it('loads Hugging Face tokenizers from a folder or a tokenizer.json, and counts differ per tokenizer', () => {
    const toks: Tokenizer[] = [loadTokenizer(bpeDir), loadTokenizer(join(wpDir, 'tokenizer.json')), loadTokenizer('cl100k_base'), loadTokenizer('o200k_base')];
    expect(toks[0].name).toBe(`hf:${bpeDir}`);
    const text = 'The harbour town woke slowly that morning. 道可道，非常道。名可名，非常名。';
    const counts = toks.map((t) => t.count(text));
    console.log('token counts (bpe, wordpiece, cl100k, o200k):', counts.join(', '));
    expect(new Set(counts).size).toBe(4);
    // WordPiece splits every CJK character; byte-level BPE with few merges needs several tokens per character.
    expect(toks[1].count('道可道')).toBe(3);
    expect(toks[0].count('道可道')).toBeGreaterThan(3);
    expect(toks[0].decode(toks[0].encode(text))).toBe(text);
  });

  it('cuts English and Chinese prompts to exact counts with both Hugging Face tokenizers', () => {
    for (const dir of [bpeDir, wpDir]) {
      const tok = loadTokenizer(dir);
      for (const corpus of ['en', 'zh']) {
        const rng = createRng(11);
        for (const n of [1, 5, 33, 250, 1500]) {
          const r = textOfTokens(tok, n, rng, nonce(rng), corpus);
          expect(tok.count(r.text), `${dir} ${corpus} ${n}`).toBe(n);
          expect(r.text).not.toContain('\uFFFD');
        }
      }
    }
  });

  it('a run with --tokenizer PATH sends prompts of the exact count and names the tokenizer in the summary', async () => {
    const tok = loadTokenizer(bpeDir);
    // The server counts prompt tokens the way the sim server does: the sum of each message content's count.
    server = await startEchoServer(() => 'fine', (b) => (b.messages as { content: string }[]).reduce((s, m) => s + tok.count(m.content), 0));
    const res = await run({ validate: false, baseUrl: server.baseUrl, requests: 12, concurrency: 4, inputTokens: 'uniform:20,200', outputTokens: 4, tokenizer: bpeDir, corpus: 'zh', out: tmpDir(), quiet: true });
    expect(res.summary.run.tokenizer).toBe(`hf:${bpeDir}`);
    expect(res.records).toHaveLength(12);
    for (const r of res.records) expect(r.input_tokens).toBe(r.expected_input_tokens);
    expect(new Set(res.records.map((r) => r.expected_input_tokens)).size).toBeGreaterThan(3);
  });

  it("the embedded server's usage matches the client count with a Hugging Face tokenizer, and differs from cl100k's", async () => {
    const hf = await run({ validate: false, requests: 6, concurrency: 2, inputTokens: 120, outputTokens: 4, tokenizer: bpeDir, out: tmpDir(), quiet: true });
    for (const r of hf.records) {
      expect(r.token_source).toBe('usage');
      expect(r.input_tokens).toBe(120);
      expect(r.expected_input_tokens).toBe(120);
    }
    // The same prompt text counted by another tokenizer gives another length.
    const cl = loadTokenizer('cl100k_base');
    const bpe = loadTokenizer(bpeDir);
    const text = textOfTokens(bpe, 120, createRng(3), nonce(createRng(3))).text;
    expect(cl.count(text)).not.toBe(bpe.count(text));
  });
});
