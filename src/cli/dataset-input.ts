// The prompt-dataset input shared by `dataset stats` and `dataset fit`: its flags, the tokenizer, and the items read.
import type { Command } from 'commander';
import { Option } from 'commander';
import { UsageError } from '../errors.js';
import { loadTokenizer, type Tokenizer } from '../dataset/tokenizer.js';
import { loadDataset, type DatasetFormat } from '../dataset/load.js';
import { readTrace } from '../dataset/replay.js';
import type { DatasetItem } from '../dataset/items.js';
import { mediaOptions } from '../dataset/dataset-workload.js';
import { DEFAULT_MAX_MEDIA_BYTES } from '../dataset/media-load.js';

export interface DatasetInputOptions {
  tokenizer: string;
  datasetFormat: DatasetFormat | 'replay';
  datasetField: string[];
  strict?: boolean;
  maxMediaBytes?: string;
  mediaHosts: string[];
}

/** The flags that say how to read a prompt dataset and count its tokens. */
export function addDatasetInputOptions(c: Command): void {
  c.option('--tokenizer <name|path>', 'tokenizer: cl100k_base, o200k_base or a Hugging Face tokenizer folder / tokenizer.json', 'cl100k_base')
    .addOption(new Option('--dataset-format <format>', 'file format; one of auto, jsonl, sharegpt, csv, replay').choices(['auto', 'jsonl', 'sharegpt', 'csv', 'replay']).default('auto'))
    .option('--dataset-field <key=column,...>', 'field mapping, e.g. prompt=question,max_tokens=len; repeatable', (v: string, prev: string[]) => [...prev, v], [] as string[])
    .option('--strict', 'fail on any bad record')
    .option('--max-media-bytes <n>', `largest media file in bytes (default ${DEFAULT_MAX_MEDIA_BYTES}, 20 MiB)`)
    .option('--media-hosts <host,...>', 'hosts that media URLs may name; repeatable', (v: string, prev: string[]) => [...prev, v], [] as string[]);
}

/** The tokenizer named by --tokenizer, or undefined with the problem added. */
export function tokenizerOption(name: string, problems: string[]): Tokenizer | undefined {
  try {
    return loadTokenizer(name);
  } catch (e) {
    problems.push(`--tokenizer: ${(e as Error).message}`);
    return undefined;
  }
}

/** The dataset's items (a tokenflood replay file read as one turn per entry), its bad records and its format. */
export function datasetItems(file: string, o: DatasetInputOptions): { items: DatasetItem[]; problems: string[]; format: string } {
  if (o.datasetFormat === 'replay') {
    const t = readTrace(file, o.datasetField, 'FILE');
    if (o.strict && t.problems.length) throw new UsageError(t.problems);
    return {
      items: t.entries.map((e) => ({ source: `${file}:${e.line}`, inputTokens: e.inputTokens, turns: [{ messages: e.messages ?? [], maxTokens: e.outputTokens }] })),
      problems: t.problems,
      format: 'replay',
    };
  }
  const maxMediaBytes = o.maxMediaBytes === undefined ? undefined : Number(o.maxMediaBytes);
  if (maxMediaBytes !== undefined && !(Number.isInteger(maxMediaBytes) && maxMediaBytes > 0)) throw new UsageError([`--max-media-bytes: expected a positive integer, got "${o.maxMediaBytes}"`]);
  const d = loadDataset(file, { format: o.datasetFormat, fields: o.datasetField, strict: o.strict, flag: 'FILE', media: mediaOptions({ maxMediaBytes, mediaHosts: o.mediaHosts }) });
  return { items: d.items, problems: d.problems, format: d.format };
}
