// The documented fallback token count when the tokenizer cannot count in time: chars/4 for most text, one per CJK character.

/** Han, kana and Hangul: one token per character is close for common BPE vocabularies (cl100k, o200k, Llama). */
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;

/**
 * estimateTokens = cjk + ceil(other / 4), where cjk = CJK characters and other = every other code point.
 * Linear in the length of the text; never 0 for non-empty text.
 */
export function estimateTokens(text: string): number {
  if (text === '') return 0;
  let cjk = 0;
  CJK.lastIndex = 0;
  while (CJK.exec(text) !== null) cjk++;
  let points = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xdc00 || c > 0xdfff) points++; // a low surrogate ends a pair counted at its high surrogate
  }
  return cjk + Math.ceil((points - cjk) / 4);
}
