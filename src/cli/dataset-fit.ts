// `tokenflood dataset fit FILE`: fit lognormal, exponential and gamma to a log's input and output lengths; print the specs that reproduce them.
import { Command, Option } from 'commander';
import { UsageError } from '../errors.js';
import { loadTrace, TRACE_FORMATS } from '../dataset/trace/registry.js';
import { fitLengths, type FitResult } from '../dataset/fit.js';
import { fmt, table } from '../report/format.js';
import type { Out } from './io.js';

interface FitOptions {
  format: string;
  json?: boolean;
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
    .addOption(new Option('--format <format>', `log format (a trace: ${TRACE_FORMATS.join(', ')})`).default('auto'))
    .option('--json', 'print the fits as one JSON document');
  fit.action((file: string) => {
    const o = fit.opts() as FitOptions;
    if (!TRACE_FORMATS.includes(o.format)) throw new UsageError([`--format: expected one of ${TRACE_FORMATS.join(', ')}, got "${o.format}"`]);
    const t = loadTrace(file, o.format);
    const one = (values: number[]): FitResult | string => {
      try {
        return fitLengths(values);
      } catch (e) {
        return (e as Error).message;
      }
    };
    const input = one(t.requests.map((r) => r.inputLength));
    const output = one(t.requests.map((r) => r.outputLength));
    if (typeof input === 'string') throw new UsageError([`${file}: input lengths: ${input}`]);
    const sides: [string, string, FitResult | string][] = [['input tokens', '--input-tokens', input], ['output tokens', '--output-tokens', output]];
    if (o.json)
      out.out.write(JSON.stringify({ file, format: t.summary.kind, requests: t.requests.length, input_tokens: side(input), output_tokens: typeof output === 'string' ? { error: output } : side(output) }, null, 2) + '\n');
    else out.out.write(render(file, `${t.summary.kind}, ${t.requests.length} requests`, sides) + '\n');
  });
}
