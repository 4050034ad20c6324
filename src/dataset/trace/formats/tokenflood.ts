// tokenflood's own replay format (JSONL with timestamp and a prompt, messages or input_tokens), read by dataset/replay.ts's reader.
import { readTrace } from '../../replay.js';
import { flatPrompt } from '../../prompt.js';
import { loadTokenizer } from '../../tokenizer.js';
import type { TraceLoader } from '../loader.js';

export const tokenflood: TraceLoader = {
  describe: 'tokenflood replay JSONL: timestamp (ms, or timestamp_s, or ISO-8601) and a prompt, messages, body or input_tokens',
  defaultBlockSize: 16,
  detect: ({ json }) =>
    json && ('timestamp' in json || 'timestamp_ms' in json || 'timestamp_s' in json) ? 'first record has a timestamp and no trace-specific fields (tokenflood replay)' : undefined,
  *read(file, { problems, options }) {
    const { entries, problems: bad } = readTrace(file, [], '--replay');
    for (const p of bad) problems.addWorded(p);
    let count = options.countTokens;
    let index = 0;
    for (const e of entries) {
      let inputLength = e.inputTokens;
      if (inputLength === undefined && e.messages) {
        // Text prompts are counted as one flat prompt (the completions count), with the default tokenizer unless given one.
        count ??= loadTokenizer().count;
        inputLength = Math.max(1, count(flatPrompt(e.messages)));
      }
      yield {
        index: index++,
        atMs: e.atMs,
        inputLength: inputLength ?? 1,
        // No recorded output length: 0 here, and the run's --output-tokens decides.
        outputLength: e.outputTokens ?? 0,
        turn: 0,
        source: `${file}:${e.line}`,
        ...(e.messages ? { messages: e.messages } : {}),
        ...(e.instance !== undefined ? { instance: e.instance } : {}),
      };
    }
  },
};
