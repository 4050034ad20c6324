// Token count that stays fast on long runs of one repeated character, where BPE is quadratic in the run length.
import type { Tokenizer } from './tokenizer.js';

/** Runs are counted in pieces of this many characters; a multiple of the long repeat tokens (64 `=`, 128 spaces). */
export const RUN_PIECE = 256;

/**
 * Σ count(segment) over the text cut inside every run of one repeated UTF-16 unit longer than 2 × RUN_PIECE,
 * at RUN_PIECE steps from the run's start. Text without such runs is counted whole (exactly). A uniform run
 * tokenizes into repeats of its longest token, so the cuts matched whole-text counts in every case tried
 * (好, =, spaces, newlines, letters); 64k 好 takes ~0.5 s instead of 16 s.
 */
export function countSplittingRuns(tok: Tokenizer, text: string): number {
  let total = 0;
  let from = 0;
  let i = 1;
  while (i < text.length) {
    if (text.charCodeAt(i) !== text.charCodeAt(i - 1)) {
      i++;
      continue;
    }
    const start = i - 1;
    let end = i + 1;
    while (end < text.length && text.charCodeAt(end) === text.charCodeAt(start)) end++;
    if (end - start > 2 * RUN_PIECE) {
      // Cut at start + k × RUN_PIECE, leaving the run's tail with the text after it.
      for (let cut = start + RUN_PIECE; end - cut >= RUN_PIECE; cut += RUN_PIECE) {
        total += tok.count(text.slice(from, cut));
        from = cut;
      }
    }
    i = end;
  }
  return total + (from < text.length ? tok.count(text.slice(from)) : 0);
}
