// Test fixtures for workload tests: small but real Hugging Face tokenizer.json files trained here, and a loopback echo server.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { chatChunk, usageChunk, DONE, type ScriptServer } from './fixtures/script-server.js';

/** GPT-2's byte → printable character map used by byte-level BPE vocabularies. */
function bytesToUnicode(): string[] {
  const bs: number[] = [];
  for (let b = 33; b <= 126; b++) bs.push(b);
  for (let b = 161; b <= 172; b++) bs.push(b);
  for (let b = 174; b <= 255; b++) bs.push(b);
  const map: string[] = new Array(256);
  for (const b of bs) map[b] = String.fromCodePoint(b);
  let n = 0;
  for (let b = 0; b < 256; b++) if (map[b] === undefined) map[b] = String.fromCodePoint(256 + n++);
  return map;
}

const PRETOKENIZE = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;

/** Train a byte-level BPE (GPT-2 style) with `merges` merges on `text` and write its tokenizer.json into `dir`. */
export function writeByteBpeTokenizer(dir: string, text: string, merges = 300): string {
  const b2u = bytesToUnicode();
  const words = new Map<string, number>();
  for (const w of text.match(PRETOKENIZE) ?? []) words.set(w, (words.get(w) ?? 0) + 1);
  let seqs = [...words].map(([w, f]) => ({ syms: [...Buffer.from(w, 'utf8')].map((b) => b2u[b]), f }));
  const vocab: Record<string, number> = {};
  b2u.forEach((c, i) => (vocab[c] = i));
  const mergeList: string[] = [];
  for (let m = 0; m < merges; m++) {
    const pairs = new Map<string, number>();
    for (const s of seqs) for (let i = 0; i + 1 < s.syms.length; i++) {
      const k = `${s.syms[i]} ${s.syms[i + 1]}`;
      pairs.set(k, (pairs.get(k) ?? 0) + s.f);
    }
    let best = '';
    let bestF = 1;
    for (const [k, f] of pairs) if (f > bestF || (f === bestF && best && k < best)) [best, bestF] = [k, f];
    if (!best) break;
    const [a, b] = best.split(' ');
    mergeList.push(best);
    vocab[a + b] = Object.keys(vocab).length;
    seqs = seqs.map((s) => {
      const out: string[] = [];
      for (let i = 0; i < s.syms.length; i++) {
        if (i + 1 < s.syms.length && s.syms[i] === a && s.syms[i + 1] === b) {
          out.push(a + b);
          i++;
        } else out.push(s.syms[i]);
      }
      return { syms: out, f: s.f };
    });
  }
  const json = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [],
    normalizer: null,
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    post_processor: null,
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: { type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: null, end_of_word_suffix: null, fuse_unk: false, byte_fallback: false, vocab, merges: mergeList },
  };
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(json));
  writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify({ model_max_length: 4096, clean_up_tokenization_spaces: false }));
  return dir;
}

/** A BERT-style WordPiece tokenizer whose vocabulary holds every character of `text` and its frequent words. */
export function writeWordPieceTokenizer(dir: string, text: string, words = 200): string {
  const vocab: Record<string, number> = {};
  const add = (t: string) => {
    if (vocab[t] === undefined) vocab[t] = Object.keys(vocab).length;
  };
  for (const t of ['[PAD]', '[UNK]', '[CLS]', '[SEP]']) add(t);
  const lower = text.toLowerCase();
  for (const c of new Set(Array.from(lower))) if (c.trim()) {
    add(c);
    add(`##${c}`);
  }
  for (const c of '[]0123456789abcdef') {
    add(c);
    add(`##${c}`);
  }
  const freq = new Map<string, number>();
  for (const w of lower.match(/[a-z]+/g) ?? []) freq.set(w, (freq.get(w) ?? 0) + 1);
  [...freq].sort((a, b) => b[1] - a[1]).slice(0, words).forEach(([w]) => add(w));
  const json = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [{ id: 1, content: '[UNK]', single_word: false, lstrip: false, rstrip: false, normalized: false, special: true }],
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: null,
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab },
  };
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(json));
  return dir;
}

/**
 * A loopback OpenAI-compatible server that streams `answer(body, n)` as one content chunk after `delayMs` and
 * reports usage (prompt tokens = `countPrompt(body)`), recording every request body. Headers and the whole
 * stream go out in one write, then the response ends.
 */
export async function startEchoServer(answer: (body: any, n: number) => string = () => 'ok', countPrompt: (body: any) => number = () => 1, delayMs = 1): Promise<ScriptServer> {
  const bodies: unknown[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'echo-model', object: 'model' }] }));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      bodies.push(body);
      const text = answer(body, bodies.length - 1);
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(chatChunk({ role: 'assistant', content: '' }) + chatChunk({ content: text }) + usageChunk(countPrompt(body), 1) + DONE);
      }, delayMs);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    bodies,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
