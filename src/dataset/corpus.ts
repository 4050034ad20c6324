// Bundled text corpora (public-domain classics and original prose) used to build synthetic prompts that read like real text.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packagePath } from '../package-root.js';

const corpusDir = packagePath('data', 'corpus');
const cache = new Map<string, string>();

/** `en`: English prose; `zh`: Chinese (道德经, 论语, 西游记 and original text). */
export const CORPORA = ['en', 'zh'] as const;
export type CorpusName = (typeof CORPORA)[number];

/** Scripts written without spaces between words: line breaks are dropped instead of becoming spaces. */
const NO_SPACES = new Set(['zh']);

/** The text of a bundled corpus, whitespace normalised (single spaces; none at all for Chinese). */
export function corpusText(name: string = 'en'): string {
  let t = cache.get(name);
  if (t === undefined) {
    if (!(CORPORA as readonly string[]).includes(name)) throw new Error(`unknown corpus "${name}": use one of ${CORPORA.join(', ')}`);
    const raw = readFileSync(join(corpusDir, `${name}.txt`), 'utf8');
    t = raw.replace(/\s+/g, NO_SPACES.has(name) ? '' : ' ').trim();
    cache.set(name, t);
  }
  return t;
}

/** Whether a corpus separates words with spaces (synthetic prompts then start at a word boundary). */
export function corpusHasSpaces(name: string): boolean {
  return !NO_SPACES.has(name);
}
