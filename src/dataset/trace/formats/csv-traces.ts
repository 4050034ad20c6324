// CSV request logs without sessions or blocks: BurstGPT (Timestamp s, Model, Request tokens, Response tokens) and Azure LLM inference traces (TIMESTAMP, ContextTokens, GeneratedTokens).
import type { TraceLoader } from '../loader.js';
import { nonNegInt, num } from '../problems.js';
import { csvOf } from './files.js';

/** "2023-11-16 18:15:46.6805900" (UTC, up to 7 decimals) or any ISO-8601 time → epoch ms. */
export function azureTimeMs(v: unknown): number | undefined {
  if (typeof v !== 'string') return undefined;
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:?\d{2})?$/.exec(v.trim());
  if (!m) return undefined;
  const frac = m[7] ? Number(`0.${m[7]}`) * 1000 : 0;
  const base = Date.parse(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}${m[8] ?? 'Z'}`);
  return Number.isFinite(base) ? base + frac : undefined;
}

interface Columns {
  time: string;
  input: string;
  output: string;
  model?: string;
  /** Send time in ms from a field's text. */
  timeMs(v: unknown): number | undefined;
  timeHint: string;
}

function csvLoader(name: string, describe: string, c: Columns): TraceLoader {
  return {
    describe,
    defaultBlockSize: 16,
    detect: ({ csvHeader }) => (csvHeader?.includes(c.input) && csvHeader.includes(c.output) ? `header has ${c.input}, ${c.output} (${name})` : undefined),
    *read(file, { problems }) {
      let index = 0;
      for (const r of csvOf(file)) {
        const where = `${file}:${r.line}`;
        if (!r.value) {
          problems.add(where, 'record', r.problem ?? 'empty');
          continue;
        }
        const o = r.value;
        const atMs = c.timeMs(o[c.time]);
        const input = nonNegInt(num(o[c.input]));
        const output = nonNegInt(num(o[c.output]));
        let bad = false;
        const fail = (field: string, msg: string): void => {
          problems.add(where, field, msg);
          bad = true;
        };
        if (!(c.time in o)) fail(c.time, 'missing column');
        else if (atMs === undefined) fail(c.time, `must be ${c.timeHint}, got ${JSON.stringify(o[c.time])}`);
        if (!input) fail(c.input, `must be a positive integer, got ${JSON.stringify(o[c.input])}`);
        if (output === undefined) fail(c.output, `must be a non-negative integer, got ${JSON.stringify(o[c.output])}`);
        if (bad) continue;
        const model = c.model ? o[c.model] : undefined;
        yield { index: index++, atMs, inputLength: input as number, outputLength: output as number, turn: 0, source: where, ...(typeof model === 'string' && model ? { model } : {}) };
      }
    },
  };
}

export const burstgpt = csvLoader('BurstGPT', 'BurstGPT CSV: Timestamp (s), Model, Request tokens, Response tokens', {
  time: 'Timestamp',
  input: 'Request tokens',
  output: 'Response tokens',
  model: 'Model',
  timeMs: (v) => {
    const s = num(v);
    return s !== undefined && s >= 0 ? s * 1000 : undefined;
  },
  timeHint: 'a non-negative number of seconds',
});

export const azure = csvLoader('Azure', 'Azure LLM inference trace CSV: TIMESTAMP, ContextTokens, GeneratedTokens', {
  time: 'TIMESTAMP',
  input: 'ContextTokens',
  output: 'GeneratedTokens',
  timeMs: azureTimeMs,
  timeHint: 'a time such as 2023-11-16 18:15:46.6805900 (UTC)',
});
