// What the sim's built-in router (serve --replicas N --router ...) keys a request on: its prompt's first tokens, or its session header.
import type { Tokenizer } from '../dataset/tokenizer.js';

/** Characters tokenized per wanted token at first (doubled until the cut lies past the first N tokens). */
const CHARS_PER_TOKEN = 6;

/** The text prefix-hash reads: the first message's content (a system prompt, or a trace's one user message), else the prompt. */
export function firstText(body: string): string {
  try {
    const b = JSON.parse(body) as { messages?: { content?: unknown }[]; prompt?: unknown };
    const first = Array.isArray(b.messages) ? b.messages[0]?.content : b.prompt;
    return typeof first === 'string' ? first : JSON.stringify(first ?? '');
  } catch {
    return body;
  }
}

/**
 * prefix-hash's key: the first `tokens` token ids of the first message (fewer if it is shorter), joined. Tokens, not
 * characters: a trace's blocks are token-exact, and its first block is often shared by every request, so the key must
 * reach past it (the default, 1024, is two 512-token trace blocks) while staying inside a shared system prompt.
 */
export function prefixTokensKey(body: string, tok: Tokenizer, tokens: number): string {
  const text = firstText(body);
  // Only the start is tokenized (a trace prompt may be 100k tokens); the cut must leave at least one token after the
  // first N, so the cut cannot change them (BPE pre-tokenizers split before words: a cut only touches its own word).
  for (let chars = tokens * CHARS_PER_TOKEN; ; chars *= 2) {
    const ids = tok.encode(text.slice(0, chars));
    if (ids.length > tokens || chars >= text.length) return ids.slice(0, tokens).join(',');
  }
}

/** session's key: the session header's value (the first, if repeated), or undefined when the request has none. */
export function sessionKey(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name.toLowerCase()];
  const s = Array.isArray(v) ? v[0] : v;
  return s !== undefined && s !== '' ? s : undefined;
}
