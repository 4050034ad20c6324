// Synthetic request specs: shared system prefix first, then the per-request nonce, then corpus text of an exact length.
import type { Tokenizer } from './tokenizer.js';
import type { Rng } from '../util/rng.js';
import { createRng } from '../util/rng.js';
import type { ChatMessage, RequestSpec } from './types.js';
import { lengthMix, nonce, textOfTokens } from './synthetic.js';

export interface PromptOptions {
  tok: Tokenizer;
  corpus: string;
  /** Start each user message with a unique nonce (after the shared prefix, so the prefix can still be cached). */
  cacheBust: boolean;
  prefixTokens: number;
  prefixGroups: number;
  endpoint: 'chat' | 'completions';
  rng: Rng;
  /** Mixed into the generator and written in every nonce: prompts differ from any other run's (docs/workloads.md#fresh-prompts). */
  salt?: string;
}

export interface PromptBuilder {
  /** The shared system prompts, one per prefix group (empty without --prefix-tokens). */
  prefixes: string[];
  /** A spec whose user part has exactly `userTokens` tokens, after a shared prefix of the given group. */
  build(userTokens: number, maxTokens: number, cls: string | undefined, group?: number): RequestSpec;
}

/**
 * Flat prompt for the completions endpoint: message contents joined by blank lines.
 * Chat servers count roughly the sum of the contents plus their template; tokenflood records the sum.
 */
export function flatPrompt(messages: readonly ChatMessage[]): string {
  return messages.map((m) => m.content).join('\n\n');
}

/** Expected prompt tokens of `messages`: the sum of content counts for chat, the flat prompt's count for completions. */
export function countPrompt(tok: Tokenizer, messages: readonly ChatMessage[], endpoint: 'chat' | 'completions'): number {
  if (endpoint === 'completions') return tok.count(flatPrompt(messages));
  let n = 0;
  for (const m of messages) n += tok.count(m.content);
  return n;
}

/** FNV-1a of a string: the salt's share of a generator seed. */
function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export function createPromptBuilder(o: PromptOptions): PromptBuilder {
  const rng = o.salt ? createRng((Math.floor(o.rng.next() * 4294967296) ^ hashString(o.salt)) >>> 0) : o.rng;
  const prefixes: string[] = [];
  if (o.prefixTokens > 0)
    for (let g = 0; g < o.prefixGroups; g++) prefixes.push(textOfTokens(o.tok, o.prefixTokens, rng, `[system ${g + 1}] `, o.corpus).text);
  // Without cache busting equal lengths give equal prompts; each length starts at its own corpus offset, so a short
  // prompt is not the head of a longer one.
  const fixedSeed = Math.floor(rng.next() * 4294967296);
  return {
    prefixes,
    build(userTokens, maxTokens, cls, group) {
      const head = o.cacheBust ? nonce(rng, userTokens, o.salt) : '';
      const user = textOfTokens(o.tok, userTokens, o.cacheBust ? rng : createRng((fixedSeed ^ lengthMix(userTokens)) >>> 0), head, o.corpus);
      const messages: ChatMessage[] = [];
      let prefixCount = 0;
      let prefixGroup: number | undefined;
      if (prefixes.length) {
        const g = (prefixGroup = group ?? (prefixes.length > 1 ? rng.int(0, prefixes.length - 1) : 0));
        messages.push({ role: 'system', content: prefixes[g] });
        prefixCount = o.prefixTokens;
      }
      messages.push({ role: 'user', content: user.text });
      const prompt = flatPrompt(messages);
      const inputTokens = o.endpoint === 'completions' ? o.tok.count(prompt) : prefixCount + user.tokens;
      return { messages, prompt, inputTokens, maxTokens, ...(cls !== undefined ? { class: cls } : {}), ...(prefixGroup !== undefined ? { prefixGroup } : {}) };
    },
  };
}
