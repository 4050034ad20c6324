// `tokenflood capacity`: size a deployment from the sim engine's model (readable table or --json).
import { snakeKeys } from '../util/snake.js';
import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { RELEASED_DTYPE_TEXT } from '../sim/engine/config.js';
import { capacityInputSchema, planCapacity, type CapacityInput, type CapacityReport } from '../sim/capacity.js';
import { addFlags, collectFlags, describedFlags, issueProblems } from '../util/flags.js';
import type { Out } from './io.js';

export const CAPACITY_FLAGS = describedFlags(capacityInputSchema.shape, { concurrency: { defaultText: '1 unless --rate' }, longOutputTokens: { defaultText: '--output-tokens' }, tp: { defaultText: 'the smallest power of two that fits' }, weightDtype: { defaultText: RELEASED_DTYPE_TEXT } });
const GiB = 1024 ** 3;

export function capacityInputFromFlags(values: Record<string, unknown>): CapacityInput {
  const problems: string[] = [];
  const input = collectFlags(values, CAPACITY_FLAGS, problems);
  const r = capacityInputSchema.safeParse(input);
  if (!r.success) problems.push(...issueProblems(r.error.issues));
  if (problems.length) throw new UsageError(problems);
  return input as CapacityInput;
}

const MiB = 1024 ** 2;
const gib = (b: number): string => `${(b / GiB).toFixed(2)} GiB`;
const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
const ms = (v: number): string => `${v.toFixed(2)} ms`;

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** "64 requests in flight; replicas sized for 76.8 (64 + 20% safety margin, --margin 0.2)": what the margin is added to. */
function targetText(r: CapacityReport): string {
  const load = `${plural(r.concurrency, 'request')} in flight`;
  if (r.margin === 0) return `${load}; replicas sized for exactly that (--margin 0)`;
  const sized = Number((r.concurrency * (1 + r.margin)).toFixed(1));
  return `${load}; replicas sized for ${sized} (${r.concurrency} + ${Number((r.margin * 100).toFixed(1))}% safety margin, --margin ${r.margin})`;
}

/** Why the count is what it is, when compute (not KV or max-num-seqs) sets it: one answer, stated once. */
function replicasWhy(r: CapacityReport): string {
  if (r.replicasForCompute <= r.replicasForConcurrency) return '';
  return ` (set by compute: ${plural(r.replicasForConcurrency, 'replica')} would hold the requests, the FLOPs need ${r.replicasForCompute} at --mfu ${r.mfu}${r.margin > 0 ? ' with the margin' : ''})`;
}

/** "PP2, EP8 with DP attention, disaggregated 1 prefill : 2 decode instances": the layout beyond TP ('' when plain TP). */
function layoutText(r: CapacityReport): string {
  const parts = [
    ...(r.pp > 1 ? [`PP${r.pp} (${r.tp * r.pp} GPUs an instance)`] : []),
    ...(r.ep > 1 ? [`EP${r.ep} (experts placed whole, ${r.tp / r.ep > 1 ? `each sliced over ${r.tp / r.ep}` : 'not sliced'})`] : []),
    ...(r.dpAttention ? ['DP attention (each GPU attends its own requests; KV not replicated)'] : []),
    ...(r.decodeInstances > 1 || r.prefillInstances > 1 || r.gpusPerReplica > r.tp * r.pp ? [`disaggregated ${r.prefillInstances} prefill : ${r.decodeInstances} decode instances`] : []),
  ];
  return parts.join(', ');
}

/** The report as label/value rows. */
export function capacityTable(r: CapacityReport): string {
  const rows: [string, string][] = [
    ['model / GPU', `${r.model} on ${r.tp}x ${r.gpu} (weights ${r.weightDtype}, KV ${r.kvDtype})${r.tpAuto && r.tp > 1 ? `; TP${r.tp} is the smallest that holds the weights (--tp to choose)` : ''}`],
    ...(r.engine ? [['engine', r.engineText ?? r.engine] as [string, string]] : []),
    ...(layoutText(r) ? [['parallelism', layoutText(r)] as [string, string]] : []),
    ['request', `${r.inputTokens} in + ${r.outputTokens} out tokens`],
    ...(r.longShare > 0 ? [['long requests', `${pct(r.longShare)} of requests: ${r.longInputTokens} in + ${r.longOutputTokens} out tokens`] as [string, string]] : []),
    ['weights', `${gib(r.weightBytes)} total, ${gib(r.weightBytesPerGpu)} per GPU${r.draftWeightBytesPerGpu > 0 ? ` + draft ${gib(r.draftWeightBytesPerGpu)} per GPU` : ''}`],
    ['KV per token', `${r.kvBytesPerToken.toLocaleString('en-US')} B (${(r.kvBytesPerToken / 1024).toFixed(1)} KiB)`],
    ['KV per 1K tokens', `${(r.kvBytesPerKTokens / MiB).toFixed(1)} MiB (1,024 tokens)`],
    [r.longShare > 0 ? 'KV per request (mean)' : 'KV per request', gib(r.kvBytesPerRequest)],
    ['KV capacity / replica', `${r.kvCapacityTokens.toLocaleString('en-US')} tokens${r.decodeInstances > 1 ? ` per decode instance` : ''} = ${r.kvCapacityRequests} requests${r.kvOffloadTokens > 0 ? `; host offload ${r.kvOffloadTokens.toLocaleString('en-US')} tokens more (evicted prefixes, preempted requests)` : ''}`],
    ['prefill (TTFT, idle)', r.longShare > 0 ? `${ms(r.prefillMs)}, long ${ms(r.prefillLongMs)}` : ms(r.prefillMs)],
    ['TPOT batch 1', `${ms(r.tpotBatch1Ms)}${r.tokensPerStep > 1 ? ` (speculative decoding: ${r.tokensPerStep.toFixed(2)} tokens per step)` : ''}`],
    [`TPOT at ${r.concurrencyPerReplica} / replica`, ms(r.tpotAtConcurrencyMs)],
    ['E2E per request', r.longShare > 0 ? `${ms(r.e2eMs)}, long ${ms(r.e2eLongMs)}, mean ${ms(r.meanE2eMs)}` : ms(r.e2eMs)],
    ['output tok/s / replica', r.outputTokensPerSecondPerReplica.toFixed(0)],
    ['target concurrency', targetText(r)],
    ['max concurrency / replica', String(r.maxConcurrencyPerReplica)],
    ['replicas / GPUs', `${plural(r.replicas, 'replica')} x ${r.gpusPerReplica === r.tp ? `TP${r.tp}` : `${r.gpusPerReplica} GPUs`} = ${plural(r.gpus, 'GPU')}${replicasWhy(r)}`],
    ['KV utilization', `${pct(r.kvUtilization)} of one replica's KV cache at ${plural(r.concurrencyPerReplica, 'request')} (full length)`],
    ['decode step', `${pct(r.decodeComputeUtilization)} of peak FLOPs, ${pct(r.decodeBandwidthUtilization)} of peak HBM bandwidth`],
    ['compute utilization', `${pct(r.computeUtilization)} of ${r.gpusPerReplica} GPU${r.gpusPerReplica === 1 ? '' : 's'} x peak x --mfu ${r.mfu} at ${r.requestsPerSecondPerReplica.toFixed(2)} requests/s per replica`],
    ['headroom', r.headroomText],
    ['bottleneck', r.bottleneckText],
  ];
  const w = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(w)}  ${v}`).join('\n') + '\n';
}

export function registerCapacity(program: Command, out: Pick<Out, 'out'> = { out: process.stdout }): void {
  const cmd = program
    .command('capacity')
    .description('estimate memory, KV capacity, prefill/decode times, utilization, headroom and GPUs needed for a model, GPU and load');
  addFlags(cmd, CAPACITY_FLAGS);
  cmd.option('--json', 'print one JSON document instead of the table').action((values: Record<string, unknown>) => {
    const report = planCapacity(capacityInputFromFlags(values));
    out.out.write(values.json ? `${JSON.stringify(snakeKeys(report), null, 2)}\n` : capacityTable(report));
  });
}
