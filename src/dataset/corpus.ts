// Bundled text corpora used to build synthetic prompts that read like real text.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
// src/dataset or dist/dataset → package root/data/corpus
const corpusDir = join(here, '..', '..', 'data', 'corpus');
const cache = new Map<string, string>();

export const CORPORA = ['en'] as const;

/** The text of a bundled corpus, normalised to single spaces. */
export function corpusText(name: string = 'en'): string {
  let t = cache.get(name);
  if (t === undefined) {
    t = readFileSync(join(corpusDir, `${name}.txt`), 'utf8').replace(/\s+/g, ' ').trim();
    cache.set(name, t);
  }
  return t;
}
