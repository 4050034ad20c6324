// `tokenflood dataset stats FILE`: token-length histograms of a dataset, and how much of it fits a context window.
import { Command } from 'commander';
import { UsageError } from '../errors.js';
import { datasetStats, parseBuckets, DEFAULT_BUCKETS, type Bucket, type DatasetStats } from '../dataset/stats.js';
import { pct, table } from '../report/format.js';
import type { Out } from './io.js';
import { addDatasetInputOptions, datasetItems, tokenizerOption, type DatasetInputOptions } from './dataset-input.js';
import type { MediaStats } from '../dataset/media-stats.js';
import { registerDatasetFit } from './dataset-fit.js';

const mib = (b: number): string => (b >= 1024 * 1024 ? `${(b / 1024 / 1024).toFixed(1)} MiB` : b >= 1024 ? `${(b / 1024).toFixed(1)} KiB` : `${b} B`);
const range = (r: { min: number | null; max: number | null }): string => (r.min === null ? '-' : r.min === r.max ? String(r.min) : `${r.min}-${r.max}`);

function renderMedia(m: MediaStats): string[] {
  return [
    '',
    `media: ${m.requests_with_media} requests carry media: ${m.images} images (${m.images_per_request.mean.toFixed(2)} per request, max ${m.images_per_request.max}), ${m.audio} audio (${m.audio_seconds.toFixed(1)} s), ${m.video} video; ${m.remote_urls} remote URLs`,
    `  bytes sent ${mib(m.media_bytes)} (${m.distinct} distinct media, ${mib(m.distinct_bytes)} held); image width ${range(m.image_width)}, height ${range(m.image_height)} px`,
  ];
}

interface StatsOptions extends DatasetInputOptions {
  buckets: string;
  maxModelLen?: string;
  json?: boolean;
}

function render(file: string, tokenizer: string, s: DatasetStats, problems: string[]): string {
  const rows = (h: Bucket[], o: Bucket[]) =>
    h.map((b, i) => [b.bucket, String(b.count), pct(b.share), String(o[i].count), pct(o[i].share)]);
  // Token counts in whole tokens in every column (fmt() would switch to one decimal above 100); the mean keeps one.
  const tokens = (x: number | null | undefined): string => (x === null || x === undefined || !Number.isFinite(x) ? '-' : String(Math.round(x)));
  const mean = (x: number | null | undefined): string => (x === null || x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(1));
  const line = (name: string, d: DatasetStats['input_tokens']) =>
    [name, String(d.count), mean(d.mean), tokens(d.p50), tokens(d.p90), tokens(d.p99), tokens(d.min), tokens(d.max)];
  const out = [
    `${file}: ${s.items} items, ${s.requests} requests${s.conversations ? ` (${s.conversations} multi-turn conversations)` : ''}; tokens counted with ${tokenizer}`,
    '',
    table(['tokens', 'count', 'mean', 'p50', 'p90', 'p99', 'min', 'max'], [line('input', s.input_tokens), line('output', s.output_tokens)]),
    '',
    table(['bucket', 'inputs', 'share', 'outputs', 'share'], rows(s.input_tokens.histogram, s.output_tokens.histogram)),
  ];
  if (s.media) out.push(...renderMedia(s.media));
  if (s.output_tokens.unknown) out.push('', `${s.output_tokens.unknown} requests give no output length (the run uses --output-tokens for them)`);
  if (s.max_model_len) {
    const m = s.max_model_len;
    out.push('', `--max-model-len ${m.limit}: ${m.over} of ${s.requests} requests (${pct(m.share)}) exceed it with input + max_tokens${m.unknown_output ? `; ${m.unknown_output} more fit only if their unknown output is short enough` : ''}`);
  }
  if (problems.length) out.push('', `${problems.length} bad records skipped:`, ...problems.slice(0, 20).map((p) => `  ${p}`));
  return out.join('\n');
}

export function registerDataset(program: Command, out: Out): void {
  const dataset = program.command('dataset').description('inspect datasets before a run');
  registerDatasetFit(dataset, out);
  const stats = dataset
    .command('stats <file>')
    .description('token-length histograms of inputs (and outputs where known), percentiles, and items over --max-model-len')
    .option('--buckets <edges>', 'histogram bucket edges, k = 1024', DEFAULT_BUCKETS)
    .option('--max-model-len <n>', 'count requests whose input + max_tokens exceeds N')
    .option('--json', 'print the statistics as one JSON document');
  addDatasetInputOptions(stats);
  stats.action((file: string) => {
    const o = stats.opts() as StatsOptions;
    const problems: string[] = [];
    let edges: number[] = [];
    try {
      edges = parseBuckets(o.buckets);
    } catch (e) {
      problems.push(`--buckets: ${(e as Error).message}`);
    }
    const limit = o.maxModelLen !== undefined ? Number(o.maxModelLen) : undefined;
    if (limit !== undefined && !(Number.isInteger(limit) && limit > 0)) problems.push(`--max-model-len: expected a positive integer, got "${o.maxModelLen}"`);
    const tok = tokenizerOption(o.tokenizer, problems);
    if (problems.length || !tok) throw new UsageError(problems);
    const d = datasetItems(file, o);
    const s = datasetStats(d.items, tok, edges, limit);
    if (o.json) out.out.write(JSON.stringify({ file, format: d.format, tokenizer: tok.name, bad_records: d.problems.length, problems: d.problems, ...s }, null, 2) + '\n');
    else out.out.write(render(file, tok.name, s, d.problems) + '\n');
  });
}
