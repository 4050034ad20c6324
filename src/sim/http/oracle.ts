// Oracle mode of the sim server: recognises items of the shipped eval sets in a prompt and answers them, right with a known probability.
import { loadEvalSet, SHIPPED_SETS, type EvalItem } from '../../eval/sets.js';
import type { Tokenizer } from '../../dataset/tokenizer.js';
import type { TextSource } from './text.js';

/** Accuracy of a model profile on the shipped sets at bf16/fp16, when --sim-accuracy is not given (docs/sim.md#oracle). */
export const PROFILE_ACCURACY: Record<string, number> = {
  'llama-3.1-8b': 0.75, 'llama-3.1-70b': 0.88, 'qwen2.5-7b': 0.8, 'qwen2.5-72b': 0.9, 'mistral-7b': 0.6,
  'deepseek-r1-distill-qwen-32b': 0.9, 'mixtral-8x7b': 0.7, 'qwen3-30b-a3b': 0.85, tiny: 0.5,
};
export const DEFAULT_ACCURACY = 0.7;

/**
 * Accuracy points lost per set under a weight precision (subtracted from the fp16 accuracy): reasoning-heavy
 * numeric sets lose most at int4, as reported for weight-only 4-bit quantization.
 */
export const QUANT_DROP: Record<string, Record<string, number>> = {
  bf16: {},
  fp16: {},
  fp8: { gsm8k: 0.01, 'math500-numeric': 0.02, mmlu: 0.005, 'gaokao-mcq': 0.01 },
  int4: { gsm8k: 0.1, 'math500-numeric': 0.15, mmlu: 0.04, 'gaokao-mcq': 0.07 },
};
// The other 8-bit and 4-bit formats lose what their kin lose; fp32 nothing.
QUANT_DROP.int8 = QUANT_DROP.fp8;
QUANT_DROP.mxfp4 = QUANT_DROP.int4;
QUANT_DROP.fp32 = {};

/**
 * Accuracy lost to a quantized KV cache on an input of L tokens (fraction, subtracted from p):
 *   drop = base + perDoubling · max(0, log2(L / 4096))
 * Quantization noise in every cached key and value adds up over the positions attention reads, so the loss grows with
 * the input: little below 4K tokens, a step per doubling beyond (KIVI, KVQuant and LMDeploy's own long-context
 * evaluations report <1 point for 8-bit KV and several points for 4-bit KV at 32K+). A stated model, not a measurement.
 */
export const KV_QUANT_DROP: Record<string, { base: number; perDoubling: number }> = {
  fp8: { base: 0, perDoubling: 0.005 },
  int8: { base: 0, perDoubling: 0.005 },
  int4: { base: 0.01, perDoubling: 0.03 },
};

/** KV_QUANT_DROP for a KV precision and an input length in tokens; 0 for 16/32-bit KV. */
export function kvQuantDrop(kvDtype: string | undefined, promptTokens: number): number {
  const d = KV_QUANT_DROP[kvDtype ?? 'bf16'];
  return d ? d.base + d.perDoubling * Math.max(0, Math.log2(promptTokens / 4096)) : 0;
}

export interface OracleOptions {
  /** Probability of a right answer at the released precision (fp16/bf16 for most); undefined = the model profile's default. */
  accuracy?: number;
  modelProfile: string;
  weightDtype: string;
  /** The precision the model was released in (its published accuracy is at it): only a drop below it costs accuracy. */
  releasedDtype?: string;
  /** KV cache precision: a quantized KV costs accuracy that grows with the input length (kvQuantDrop). */
  kvDtype?: string;
  seed: number;
}

export interface OracleAnswer {
  /** Token pieces, one per output token; the first `reasoningTokens` are reasoning. */
  pieces: string[];
  reasoningTokens: number;
  /** The same reply with a wrong answer, as many pieces: what the corrupt-above fault sends instead. */
  corrupted: string[];
}

/** FNV-1a over a string, then a final mix: a uniform 32-bit value. */
function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return (h ^ (h >>> 16)) >>> 0;
}
const unit = (s: string): number => hash32(s) / 2 ** 32;

const KEY_CHARS = 12;
const MARKERS = ['Question: ', '题目：'];
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

interface Known {
  item: EvalItem;
  set: string;
  /** The question as tokenflood's templates write it: with its options, one per line (sets repeat a question with other options). */
  block: string;
}

let index: Map<string, Known[]> | undefined;
/** Shipped items by the first KEY_CHARS characters of their question, read once per process. */
function knownItems(): Map<string, Known[]> {
  if (index) return index;
  index = new Map();
  for (const set of SHIPPED_SETS)
    for (const item of loadEvalSet(set).items) {
      const block = item.choices ? `${item.question}\n${item.choices.map((c, i) => `${LETTERS[i]}. ${c}`).join('\n')}` : item.question;
      const k = block.slice(0, KEY_CHARS);
      const list = index.get(k) ?? [];
      list.push({ item, set, block });
      index.set(k, list);
    }
  return index;
}

/**
 * The shipped item a prompt asks: the last "Question: "/"题目：" block that starts a known question (earlier ones are
 * few-shot examples; a question may itself contain the marker), or undefined.
 */
export function recognise(prompt: string): Known | undefined {
  const at: { i: number; len: number }[] = [];
  for (const m of MARKERS) for (let i = prompt.indexOf(m); i >= 0; i = prompt.indexOf(m, i + 1)) at.push({ i, len: m.length });
  at.sort((a, b) => b.i - a.i);
  for (const { i, len } of at.slice(0, 8)) {
    const rest = prompt.slice(i + len);
    let best: Known | undefined;
    for (const k of knownItems().get(rest.slice(0, KEY_CHARS)) ?? []) if (rest.startsWith(k.block) && (!best || k.block.length > best.block.length)) best = k;
    if (best) return best;
  }
  return undefined;
}



/** A wrong answer, fixed per item: another number, or another option. */
function wrongAnswer(k: Known, h: number): string {
  if (k.item.choices) {
    const n = k.item.choices.length;
    const gold = LETTERS.indexOf(k.item.answer);
    return LETTERS[(gold + 1 + (h % (n - 1))) % n];
  }
  const g = Number(k.item.answer);
  return Number.isFinite(g) ? String(g + 1 + (h % 9)) : `${k.item.answer} (not)`;
}

/** Reply forms, so every grading rule is exercised; picked per item. */
const NUMERIC_FORMS = [
  (a: string) => `Let me work through it step by step.\n#### ${a}`,
  (a: string) => `Working it out, the result is $\\boxed{${a}}$.`,
  (a: string) => `Step 1: read the problem.\nStep 2: compute.\nAnswer: ${a}`,
  (a: string) => `So the final answer is ${a}.`,
  (a: string) => `Adding it up gives ${Number(a) >= 1000 ? Number(a).toLocaleString('en-US') : a} in total.`,
];
const CHOICE_FORMS = [
  (a: string) => `Answer: ${a}`,
  (a: string) => `The correct option is (${a}).`,
  (a: string) => `${a}`,
  (a: string) => `Considering each option, the answer is ${a}.`,
];
const ZH_CHOICE_FORMS = [(a: string) => `答案：${a}`, (a: string) => `本题考查基础知识。故选${a}。`, (a: string) => `正确答案是（${a}）`];

/**
 * One piece per output token: the text is cut into ASCII words (with their leading spaces) and single other
 * characters, each emitted whole on its first token and followed by empty pieces for the rest of its tokens, so a
 * multi-byte character is never split (this tokenizer API decodes token by token).
 */
export function tokenPieces(tok: Tokenizer, text: string): string[] {
  const pieces: string[] = [];
  for (const chunk of text.match(/\s*[\x21-\x7e]+|\s+|[^\x00-\x7f]/gu) ?? []) {
    pieces.push(chunk);
    for (let n = tok.count(chunk); n > 1; n--) pieces.push('');
  }
  return pieces;
}

export interface Oracle {
  /** The scripted reply to `prompt`, or undefined when it is not a shipped item. */
  answer(prompt: string, ctx: { reasoning: boolean; promptTokens?: number }): OracleAnswer | undefined;
}

export function createOracle(o: OracleOptions, tok: Tokenizer): Oracle {
  const base = o.accuracy ?? PROFILE_ACCURACY[o.modelProfile] ?? DEFAULT_ACCURACY;
  return {
    answer(prompt, ctx) {
      const k = recognise(prompt);
      if (!k) return undefined;
      const drop = (d: string | undefined) => QUANT_DROP[d ?? 'bf16']?.[k.set] ?? 0;
      const p = Math.max(0, base - Math.max(0, drop(o.weightDtype) - drop(o.releasedDtype)) - kvQuantDrop(o.kvDtype, ctx.promptTokens ?? 0));
      // One draw per item and seed: a lower p only turns right answers wrong (the pairs a compare sees are nested).
      const right = unit(`${o.seed}:${k.item.id}`) < p;
      const h = hash32(`${o.seed}:${k.item.id}:form`);
      const zh = /[\u4e00-\u9fff]/.test(k.item.question);
      const forms = k.item.choices ? (zh ? ZH_CHOICE_FORMS : CHOICE_FORMS) : NUMERIC_FORMS;
      const form = forms[h % forms.length];
      // Reasoning with a distracting number/letter in it: grading must use the answer text only.
      const thought = ctx.reasoning ? tokenPieces(tok, `First guess: ${wrongAnswer(k, h + 1)}. Checking again carefully.`) : [];
      const pieces = [...thought, ...tokenPieces(tok, form(right ? k.item.answer : wrongAnswer(k, h)))];
      const corrupted = [...thought, ...tokenPieces(tok, form(wrongAnswer(k, h)))];
      // Same length, so the engine's output count holds whichever is sent.
      while (pieces.length < corrupted.length) pieces.push('');
      while (corrupted.length < pieces.length) corrupted.push('');
      return { pieces, reasoningTokens: thought.length, corrupted };
    },
  };
}

/** A text source that emits a scripted reply, one piece per output token. */
export function scriptedText(base: TextSource, pieces: readonly string[]): TextSource {
  return { words: base.words, period: base.period, next: (_rng, i) => pieces[i] ?? '' };
}
