// `tokenflood dataset fit FILE`: fit lognormal, exponential and gamma to the input and output lengths of a log (a trace)
// or of a prompt dataset (its prompts counted with --tokenizer); print the specs that reproduce them.
import { Command, Option } from 'commander';
import { UsageError } from '../errors.js';
import { detectTraceKind, loadTrace, TRACE_FORMATS } from '../dataset/trace/registry.js';
import { requestLengths } from '../dataset/stats.js';
import { addDatasetInputOptions, datasetItems, tokenizerOption, type DatasetInputOptions } from './dataset-input.js';
import { fitLengths, type FitResult } from '../dataset/fit.js';
import { fmt, table } from '../report/format.js';
import type { Out } from './io.js';

interface FitOptions extends DatasetInputOptions {
  format: string;
  json?: boolean;
}

const FIT_FORMATS = [...TRACE_FORMATS, 'dataset'];

/** The lengths of FILE: a trace's recorded lengths, or a prompt dataset's counted ones (auto: a dataset when no trace format matches). */
function lengthsOf(file: string, o: FitOptions): { kind: string; requests: number; inputs: number[]; outputs: number[]; unknownOutputs: number; badRecords: number } {
  let asDataset = o.format === 'dataset';
  if (o.format === 'auto') {
    try {
      detectTraceKind(file);
    } catch (e) {
      // Not a trace by its first record: read it as a prompt dataset (JSONL, ShareGPT, CSV), as `dataset stats` does.
      if (!(e instanceof UsageError) || !/cannot tell the trace format/.test(e.message)) throw e;
      asDataset = true;
    }
  }
  if (!asDataset) {
    const t = loadTrace(file, o.format);
    return { kind: t.summary.kind, requests: t.requests.length, inputs: t.requests.map((r) => r.inputLength), outputs: t.requests.map((r) => r.outputLength), unknownOutputs: 0, badRecords: 0 };
  }
  const problems: string[] = [];
  const tok = tokenizerOption(o.tokenizer, problems);
  if (!tok) throw new UsageError(problems);
  const d = datasetItems(file, o);
  const { inputs, outputs } = requestLengths(d.items, tok);
  const known = outputs.filter((x): x is number => x !== undefined);
  return { kind: `${d.format} dataset, tokens counted with ${tok.name}`, requests: inputs.length, inputs, outputs: known, unknownOutputs: outputs.length - known.length, badRecords: d.problems.length };
}

const side = (r: FitResult) => ({
  n: r.n,
  dropped_non_positive: r.dropped,
  mean: r.mean,
  sd: r.sd,
  min: r.min,
  max: r.max,
  best: r.best.kind,
  spec: r.best.spec,
  fits: r.fits.map((f) => ({ kind: f.kind, params: f.params, log_likelihood: f.logLikelihood, aic: f.aic, ks_d: f.ksD, ks_p: f.ksP, spec: f.spec })),
});

function render(file: string, kind: string, sides: [string, string, FitResult | string][]): string {
  const out = [`${file} (${kind})`];
  for (const [name, flag, r] of sides) {
    out.push('', typeof r === 'string' ? `${name}: ${r}` : `${name}: ${r.n} values${r.dropped ? ` (${r.dropped} not positive, left out)` : ''}, mean ${fmt(r.mean)}, sd ${fmt(r.sd)}, min ${r.min}, max ${r.max}`);
    if (typeof r === 'string') continue;
    out.push(
      table(
        ['fit', 'parameters', 'log-lik', 'AIC', 'KS D', 'KS p'],
        r.fits.map((f) => [f === r.best ? `${f.kind} *` : f.kind, Object.entries(f.params).map(([k, v]) => `${k}=${fmt(v)}`).join(' '), fmt(f.logLikelihood), fmt(f.aic), fmt(f.ksD, 3), fmt(f.ksP, 3)]),
      ),
      `  ${flag} '${r.best.spec}'`,
    );
  }
  const specs = sides.filter((s): s is [string, string, FitResult] => typeof s[2] !== 'string').map(([, flag, r]) => `${flag} '${r.best.spec}'`);
  if (specs.length) out.push('', `reproduce with: tokenflood run ${specs.join(' ')}`, '(* = lowest AIC; the KS p-value is approximate, since the parameters come from the same data)');
  return out.join('\n');
}

export function registerDatasetFit(dataset: Command, out: Out): void {
  const fit = dataset
    .command('fit <file>')
    .description('fit lognormal, exponential and gamma to a log\'s input and output lengths (maximum likelihood, AIC and KS) and print the --input-tokens / --output-tokens specs that reproduce it')
    .addOption(new Option('--format <format>', `log format: a trace (${TRACE_FORMATS.join(', ')}) or dataset (prompts: JSONL, ShareGPT, CSV, read as \`dataset stats\` reads them); auto reads a file no trace format matches as a dataset`).default('auto'))
    .option('--json', 'print the fits as one JSON document');
  addDatasetInputOptions(fit);
  fit.action((file: string) => {
    const o = fit.opts() as FitOptions;
    if (!FIT_FORMATS.includes(o.format)) throw new UsageError([`--format: expected one of ${FIT_FORMATS.join(', ')}, got "${o.format}"`]);
    const l = lengthsOf(file, o);
    const one = (values: number[]): FitResult | string => {
      try {
        return fitLengths(values);
      } catch (e) {
        return (e as Error).message;
      }
    };
    const input = one(l.inputs);
    const output = l.outputs.length ? one(l.outputs) : 'no output lengths in the data (no max_tokens, output_tokens or recorded answer): give --output-tokens to the run';
    if (typeof input === 'string') throw new UsageError([`${file}: input lengths: ${input}`]);
    const sides: [string, string, FitResult | string][] = [['input tokens', '--input-tokens', input], ['output tokens', '--output-tokens', output]];
    const notes = [
      ...(l.unknownOutputs && l.outputs.length ? [`${l.unknownOutputs} of ${l.requests} requests give no output length: the output fit is of the other ${l.outputs.length}`] : []),
      ...(l.badRecords ? [`${l.badRecords} bad records skipped (\`dataset stats\` names them; --strict refuses)`] : []),
    ];
    if (o.json)
      out.out.write(JSON.stringify({ file, format: l.kind, requests: l.requests, unknown_outputs: l.unknownOutputs, bad_records: l.badRecords, input_tokens: side(input), output_tokens: typeof output === 'string' ? { error: output } : side(output) }, null, 2) + '\n');
    else out.out.write(render(file, `${l.kind}, ${l.requests} requests`, sides) + (notes.length ? '\n\n' + notes.join('\n') : '') + '\n');
  });
}
