// A dataset prompt of 200 KB of one character is counted exactly, and fast: BPE merges a long piece in O(n log n).
import { describe, it, expect } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../src/run.js';
import { startScriptServer, chatChunk, DONE } from './fixtures/script-server.js';
import { tmpDir } from './helpers.js';

describe.each(['h1', 'undici'] as const)('a 200 KB one-character prompt (transport %s)', (transport) => {
  // Before: the prompt-side count was quadratic in the run (88 s for this prompt); the 60 s bound is only a backstop.
  it('is counted as 25,000 tokens (cl100k_base: 8 a per token) and sent', async () => {
    const dir = tmpDir();
    const file = join(dir, 'a.jsonl');
    writeFileSync(file, `${JSON.stringify({ prompt: 'a'.repeat(200_000) })}\n`);
    let got = 0;
    const srv = await startScriptServer((b) => {
      got = ((b as { messages: { content: string }[] }).messages.at(-1) as { content: string }).content.length;
      return { steps: [{ at: 0, write: chatChunk({ content: 'ok' }) + DONE }] };
    });
    try {
      const res = await run({ validate: false, baseUrl: srv.baseUrl, transport, dataset: file, requests: 1, outputTokens: 2, out: join(dir, 'out'), quiet: true });
      expect(res.summary.requests.ok).toBe(1);
      expect(got).toBe(200_000);
      // No usage from the server: the count is the client's own.
      expect(res.records[0].input_tokens).toBe(25_000);
    } finally {
      await srv.close();
    }
  }, 60_000);
});
