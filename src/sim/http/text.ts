// Output text for the sim server: one word-token per output token, chosen so re-tokenizing gives the same count.
import type { Tokenizer } from '../../dataset/tokenizer.js';
import type { Rng } from '../../util/rng.js';

const WORDS = (
  'the of and to in is that for it as was with be by on not he this are or his from at which but have an they ' +
  'you were her she there one all we their has been if more when will would who so no time can about out them ' +
  'some could into only other then its also two first new these any may well work such must because each very ' +
  'system model data token request server memory cache batch prefill decode latency throughput queue step ' +
  'layer weight value key attention context length budget block load test rate time result number small large ' +
  'fast slow simple clear good high low long short early late open close start end part place point world ' +
  'water light night river house city story music paper money power field market group problem question answer'
).split(' ');

/** A tokenizer's single-token words and sentence marks, ready to be emitted one per output token. */
export interface TextSource {
  /** Token strings whose concatenation re-encodes to the same number of tokens. */
  readonly words: readonly string[];
  readonly period: string;
  /** Token string for output position `i` (0-based) of a request, from that request's generator. */
  next(rng: Rng, i: number): string;
}

/**
 * Keep the words that the tokenizer encodes as exactly one token with a leading space and that decode
 * back unchanged; with BPE tokenizers that split on " word" boundaries (cl100k, o200k) the count round-trips exactly.
 */
export function createTextSource(tok: Tokenizer): TextSource {
  const words = WORDS.map((w) => ` ${w}`).filter((w) => {
    const ids = tok.encode(w);
    return ids.length === 1 && tok.decode(ids) === w;
  });
  const usable = words.length > 0 ? words : [tok.decode([tok.encode(' the')[0]])];
  const period = tok.encode('.').length === 1 ? '.' : usable[0];
  return {
    words: usable,
    period,
    // Roughly one sentence mark every 12 words.
    next: (rng, i) => (i > 0 && rng.next() < 1 / 12 ? period : usable[Math.floor(rng.next() * usable.length)]),
  };
}
