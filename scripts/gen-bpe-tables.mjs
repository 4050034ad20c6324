// Writes data/bpe/<encoding>.bin.gz, the compact rank tables src/dataset/bpe.ts reads, from gpt-tokenizer's ranks.
// Format (gzip): u32 LE token count N, then N u8 byte lengths, then every token's bytes in rank order.
// Run after changing the gpt-tokenizer version: `node scripts/gen-bpe-tables.mjs` (test/bpe.test.ts compares counts).
import { createRequire } from 'node:module';
import { writeFileSync, mkdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const dir = fileURLToPath(new URL('../data/bpe/', import.meta.url));
mkdirSync(dir, { recursive: true });
for (const encoding of ['cl100k_base', 'o200k_base']) {
  const mod = require(`gpt-tokenizer/bpeRanks/${encoding}`);
  const ranks = mod.default ?? mod;
  const parts = ranks.map((v) => (v === undefined ? Buffer.alloc(0) : typeof v === 'string' ? Buffer.from(v, 'utf8') : Buffer.from(v)));
  const head = Buffer.alloc(4 + parts.length);
  head.writeUInt32LE(parts.length, 0);
  parts.forEach((p, i) => {
    if (p.length > 255) throw new Error(`${encoding}: token ${i} has ${p.length} bytes (> 255)`);
    head[4 + i] = p.length;
  });
  const out = gzipSync(Buffer.concat([head, ...parts]), { level: 9 });
  writeFileSync(`${dir}${encoding}.bin.gz`, out);
  console.log(`${encoding}: ${parts.length} tokens, ${out.length} bytes`);
}
