// Tokenizers: the one interface every token count in tokenflood goes through.
import { readFileSync, existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { loadBpe } from './bpe.js';

export interface Tokenizer {
  /** Human-readable id, recorded in every summary (e.g. "tiktoken:cl100k_base"). */
  readonly name: string;
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
  count(text: string): number;
}

const require = createRequire(import.meta.url);
const cache = new Map<string, Tokenizer>();

/** Built-in BPE encodings, shipped offline as compact rank tables in data/bpe (from the gpt-tokenizer package). */
export const BUILTIN_TOKENIZERS = ['cl100k_base', 'o200k_base'] as const;
export const DEFAULT_TOKENIZER = 'cl100k_base';

// src/dataset or dist/dataset → package root/data/bpe
const bpeDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'data', 'bpe');

function builtin(encoding: string): Tokenizer {
  // gpt-tokenizer's own tables cost ~30 MB of heap and 0.1–0.2 CPU-s to load; the same ranks from data/bpe ~2 MB (docs/performance.md).
  const bpe = loadBpe(encoding, join(bpeDir, `${encoding}.bin.gz`));
  return { name: `tiktoken:${encoding}`, encode: bpe.encode, decode: bpe.decode, count: bpe.count };
}

function huggingFace(dir: string): Tokenizer {
  const file = statSync(dir).isDirectory() ? join(dir, 'tokenizer.json') : dir;
  const configFile = join(statSync(dir).isDirectory() ? dir : join(dir, '..'), 'tokenizer_config.json');
  const json = JSON.parse(readFileSync(file, 'utf8'));
  const config = existsSync(configFile) ? JSON.parse(readFileSync(configFile, 'utf8')) : {};
  const { Tokenizer: HfTokenizer } = require('@huggingface/tokenizers') as typeof import('@huggingface/tokenizers');
  const tok = new HfTokenizer(json, config);
  return {
    name: `hf:${dir}`,
    encode: (t) => tok.encode(t, { add_special_tokens: false }).ids,
    // tokenizers.js rejects an empty id list; an empty decode is simply the empty string.
    decode: (ids) => (ids.length ? tok.decode(ids as number[], { skip_special_tokens: true }) : ''),
    count: (t) => tok.encode(t, { add_special_tokens: false }).ids.length,
  };
}

/**
 * Load a tokenizer by spec: a built-in encoding name (`cl100k_base`, `o200k_base`) or a path to a
 * Hugging Face tokenizer folder / tokenizer.json. Results are cached per spec.
 */
export function loadTokenizer(spec: string = DEFAULT_TOKENIZER): Tokenizer {
  const hit = cache.get(spec);
  if (hit) return hit;
  let tok: Tokenizer;
  if ((BUILTIN_TOKENIZERS as readonly string[]).includes(spec)) tok = builtin(spec);
  else if (existsSync(spec)) tok = huggingFace(spec);
  else
    throw new Error(
      `unknown tokenizer "${spec}": use one of ${BUILTIN_TOKENIZERS.join(', ')} or a path to a Hugging Face tokenizer folder`,
    );
  cache.set(spec, tok);
  return tok;
}
