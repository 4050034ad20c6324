// Prompt templates for graded items (docs/eval.md#templates): chat and completions, zero-shot or few-shot.
import type { ChatMessage } from '../dataset/types.js';
import type { GradeMode } from './grade.js';
import type { EvalItem, EvalSet } from './sets.js';

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** The instruction before the question, by grading mode and language. */
export function instruction(mode: GradeMode, zh: boolean): string {
  if (mode === 'choice')
    return zh
      ? '以下是一道单项选择题。请先简要分析，然后在最后一行以“答案：X”的形式给出正确选项的字母。'
      : 'Answer the following multiple-choice question. Think step by step, then give the letter of the correct option on the last line as "Answer: X".';
  if (mode === 'numeric')
    return zh
      ? '请解答下面的题目。先写出推理过程，然后在最后一行以“答案：<数字>”的形式给出最终答案。'
      : 'Solve the following problem. Think step by step, then give the final answer as a number on the last line as "Answer: <number>".';
  return zh ? '请回答下面的问题，只给出答案。' : 'Answer the following question with the answer only.';
}

/** The question with its options, one per line: "A. ...". */
export function questionBlock(item: EvalItem, zh: boolean): string {
  const q = `${zh ? '题目：' : 'Question: '}${item.question}`;
  return item.choices ? `${q}\n${item.choices.map((c, i) => `${LETTERS[i]}. ${c}`).join('\n')}` : q;
}

/** Sentences of the --context-tokens document: plain prose with no question marker and no number an answer could take. */
const CONTEXT_SENTENCES = [
  'The committee met in the east hall and reviewed the notes of the previous session without objection.',
  'Several members asked for the archive to be moved to the larger room on the ground floor.',
  'The weather that season was mild, and the gardens behind the library were opened to visitors early.',
  'A short report on the condition of the old bridge was read aloud and filed with the other papers.',
];

/**
 * A long-context preamble of at least `tokens` tokens (prose, then a blank line) that every prompt starts with, so the
 * same questions can be graded at long input lengths (docs/eval.md#long-context); '' for 0.
 */
export function contextDocument(tokens: number, count: (s: string) => number): string {
  if (tokens <= 0) return '';
  const one = CONTEXT_SENTENCES.join(' ') + ' ';
  const per = Math.max(1, count(one));
  return `Background document (not needed for the question):\n${one.repeat(Math.ceil(tokens / per)).trimEnd()}\n\n`;
}

/** The reply a few-shot example shows: the gold answer on an answer line. */
const shotAnswer = (item: EvalItem, zh: boolean): string => `${zh ? '答案：' : 'Answer: '}${item.answer}`;

/** Few-shot examples for `item`: the first `k` items of the set other than it (fixed, so every run sends the same prompt). */
export function shotsFor(set: EvalSet, item: EvalItem, k: number): EvalItem[] {
  const out: EvalItem[] = [];
  for (const x of set.items) {
    if (out.length >= k) break;
    if (x.id !== item.id) out.push(x);
  }
  return out;
}

export interface EvalPrompt {
  messages: ChatMessage[];
  prompt: string;
}

/**
 * Chat: one user message (instruction, blank line, question); few-shot examples come first as user/assistant pairs.
 * Completions: the instruction, then each example as "Question: ... / Answer: gold", then the question and "Answer:"
 * for the model to continue.
 */
export function buildPrompt(set: EvalSet, item: EvalItem, shots: number, context = ''): EvalPrompt {
  const zh = set.zh;
  const head = context + instruction(set.mode, zh);
  const examples = shotsFor(set, item, shots);
  const messages: ChatMessage[] = [];
  for (const [i, x] of examples.entries()) {
    messages.push({ role: 'user', content: i === 0 ? `${head}\n\n${questionBlock(x, zh)}` : questionBlock(x, zh) });
    messages.push({ role: 'assistant', content: shotAnswer(x, zh) });
  }
  messages.push({ role: 'user', content: examples.length ? questionBlock(item, zh) : `${head}\n\n${questionBlock(item, zh)}` });
  const prompt = [head, ...examples.map((x) => `${questionBlock(x, zh)}\n${shotAnswer(x, zh)}`), `${questionBlock(item, zh)}\n${zh ? '答案：' : 'Answer:'}`].join('\n\n');
  return { messages, prompt };
}
