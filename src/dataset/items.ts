// Dataset items: what a file holds once parsed, independent of its format (JSONL, ShareGPT, CSV, replay).
import type { ChatMessage, MediaPart } from './types.js';
import type { MediaRef } from './media-refs.js';

export interface DatasetTurn {
  /** New messages of this turn (for the first turn: any system prompt and the first user message). */
  messages: ChatMessage[];
  /** max_tokens / output_tokens from the data, when given. */
  maxTokens?: number;
  /** The recorded answer (ShareGPT `gpt` turns): its token count is the turn's output length when no max_tokens is given. */
  answer?: string;
  /** Media of the turn's user message as written in the data (paths, URLs), checked and read at load into `media`. */
  mediaRefs?: MediaRef[];
  /** The checked media of the turn's user message (RequestSpec.media). */
  media?: MediaPart[];
}

export interface DatasetItem {
  /** `file:line` of the item (its first line for multi-line records and grouped sessions). */
  source: string;
  class?: string;
  /** The user (tenant, API key owner…) the item belongs to, from the data's `user` field: summary.json by_user. */
  user?: string;
  /** The body's `priority` for every turn of the item (lower runs first), from the data's `priority` field. */
  priority?: number;
  /** Conversation id from the data (JSONL `session`/`conversation`), when given. */
  session?: string;
  /** One turn for single requests; several for a multi-turn conversation. */
  turns: DatasetTurn[];
  /** Trace replay: recorded send time in ms. */
  timestampMs?: number;
  /** Trace replay without text: prompt length to synthesise. */
  inputTokens?: number;
}

/** The canonical record keys a --dataset-field mapping may rename. */
export const FIELD_KEYS = ['prompt', 'messages', 'system', 'max_tokens', 'output_tokens', 'class', 'user', 'priority', 'session', 'turn', 'timestamp', 'conversations'] as const;
export type FieldKey = (typeof FIELD_KEYS)[number];
export type FieldMap = Partial<Record<FieldKey, string>>;

export interface ParsedDataset {
  items: DatasetItem[];
  /** One line per bad record, each starting with `file:line:`. */
  problems: string[];
  /** Bad media (`file:line: field "ref": reason`): loadDataset refuses the file when any. */
  mediaProblems?: string[];
  format: 'jsonl' | 'sharegpt' | 'csv';
  /** Records read (good and bad). */
  records: number;
}
