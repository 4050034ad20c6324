// Tokenizers: the one interface every token count in tokenflood goes through.
import { readFileSync, existsSync, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { loadBpe } from './bpe.js';
import { packagePath } from '../package-root.js';

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

const bpeDir = packagePath('data', 'bpe');

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

/** Hugging Face ids whose tokenizer is a shipped encoding (the same ranks), so no download or local copy is needed. */
export const SHIPPED_HUB_TOKENIZERS: Readonly<Record<string, (typeof BUILTIN_TOKENIZERS)[number]>> = {
  'Xenova/gpt-4': 'cl100k_base',
  'Xenova/gpt-3.5-turbo': 'cl100k_base',
  'Xenova/text-embedding-ada-002': 'cl100k_base',
  'Xenova/gpt-4o': 'o200k_base',
  'openai/cl100k_base': 'cl100k_base',
  'openai/o200k_base': 'o200k_base',
};

/** The Hugging Face hub cache, as huggingface_hub finds it: HF_HUB_CACHE, HUGGINGFACE_HUB_CACHE, HF_HOME/hub, ~/.cache/huggingface/hub. */
export function hubCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.HF_HUB_CACHE || env.HUGGINGFACE_HUB_CACHE || join(env.HF_HOME || join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'huggingface'), 'hub');
}

/** A Hugging Face id ("org/name") as vLLM's --tokenizer takes it: org/name with no path of that name on disk. */
const HUB_ID = /^[A-Za-z0-9][\w.-]*\/[\w.-]+$/;

/**
 * The local copy of a hub tokenizer: the snapshot refs/main points at in the hub cache (else the only snapshot)
 * holding tokenizer.json; undefined when there is none. Nothing is downloaded.
 */
export function hubTokenizerDir(id: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (!HUB_ID.test(id)) return undefined;
  const repo = join(hubCacheDir(env), `models--${id.replace('/', '--')}`);
  const snaps = join(repo, 'snapshots');
  if (!existsSync(snaps)) return undefined;
  const ref = join(repo, 'refs', 'main');
  const named = existsSync(ref) ? readFileSync(ref, 'utf8').trim() : undefined;
  const all = readdirSync(snaps).filter((d) => existsSync(join(snaps, d, 'tokenizer.json')));
  const pick = named && all.includes(named) ? named : all.length === 1 ? all[0] : undefined;
  return pick === undefined ? undefined : join(snaps, pick);
}

/** Whether `loadTokenizer(spec)` finds `spec` (by name, path or local hub copy) without loading it. */
export function tokenizerFound(spec: string): boolean {
  return (BUILTIN_TOKENIZERS as readonly string[]).includes(spec) || Object.hasOwn(SHIPPED_HUB_TOKENIZERS, spec) || existsSync(spec) || hubTokenizerDir(spec) !== undefined;
}

/**
 * Load a tokenizer by spec: a built-in encoding name (`cl100k_base`, `o200k_base`), a path to a Hugging Face
 * tokenizer folder / tokenizer.json, or a Hugging Face id (`org/name`, as vLLM's --tokenizer) that is a shipped
 * encoding or has a local copy in the hub cache. Results are cached per spec.
 */
export function loadTokenizer(spec: string = DEFAULT_TOKENIZER): Tokenizer {
  const hit = cache.get(spec);
  if (hit) return hit;
  let tok: Tokenizer;
  const hubDir = existsSync(spec) ? undefined : hubTokenizerDir(spec);
  if ((BUILTIN_TOKENIZERS as readonly string[]).includes(spec)) tok = builtin(spec);
  else if (Object.hasOwn(SHIPPED_HUB_TOKENIZERS, spec)) tok = { ...builtin(SHIPPED_HUB_TOKENIZERS[spec]), name: `hf:${spec}` };
  else if (existsSync(spec)) tok = huggingFace(spec);
  else if (hubDir) tok = { ...huggingFace(hubDir), name: `hf:${spec}` };
  else if (HUB_ID.test(spec))
    throw new Error(
      `unknown tokenizer "${spec}": a Hugging Face id with no local copy in ${hubCacheDir()} (tokenflood downloads nothing): fetch it first, e.g. huggingface-cli download ${spec} tokenizer.json tokenizer_config.json, or give the folder's path, or one of ${BUILTIN_TOKENIZERS.join(', ')}`,
    );
  else
    throw new Error(
      `unknown tokenizer "${spec}": use one of ${BUILTIN_TOKENIZERS.join(', ')}, a path to a Hugging Face tokenizer folder, or a Hugging Face id in the local cache`,
    );
  cache.set(spec, tok);
  return tok;
}
