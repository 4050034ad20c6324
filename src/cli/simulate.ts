// `tokenflood simulate`: the run options plus the sim engine's options; predicts a run on the engine model, no server.
import type { Command } from 'commander';
import { RunConfigSchema, RUN_FLAGS } from '../config/schema.js';
import { toKebab } from '../util/parse.js';
import { readConfigFile } from '../config/load.js';
import { UsageError } from '../errors.js';
import { renderSummary } from '../report/terminal.js';
import { addFlags, describedFlags, flagTable, givenFlags, type FlagTable } from '../util/flags.js';
import { addRefusedShardFlags, SHARD_FLAGS, withoutShardFlags } from '../config/shard.js';
import { NOT_MODELLED_KEYS, resolveSimulate, simEngineOptionsSchema, simulate, SIM_ENGINE_KEYS } from '../simulate.js';
import { SIM_SERVER_FLAG_META } from '../sim/options.js';
import { RELEASED_DTYPE_TEXT } from '../sim/engine/config.js';
import { terminalReporter } from './run.js';
import { chooseReporters, displayReporters, endOut } from './reporters.js';
import type { Out } from './io.js';
import { workloadWarningText } from './workload-warnings.js';

/** Run flags that mean something without a server, with help reworded where the meaning shifts. */
export const SIMULATE_RUN_FLAGS: FlagTable = Object.fromEntries(
  Object.entries({
    ...withoutShardFlags(RUN_FLAGS),
    ...flagTable(RunConfigSchema.pick({ model: true, maxModelLen: true, seed: true }).shape, {
      model: { arg: 'name', help: 'model name in the records; <profile-id>-reasoning streams the first --reasoning-share of output tokens as reasoning', defaultText: 'the model profile id' },
      maxModelLen: { help: "the engine's max_model_len, and (as in run) skip workload items whose input + max_tokens exceed it (longer requests get vLLM's HTTP 400)", defaultText: SIM_SERVER_FLAG_META.maxModelLen.defaultText },
      seed: { help: 'sampling seed: recorded only (the engine model does not sample text)' },
    }),
  }).filter(([k]) => !(NOT_MODELLED_KEYS as readonly string[]).includes(k)),
);

export const ENGINE_FLAGS = describedFlags(simEngineOptionsSchema.shape, { weightDtype: { defaultText: RELEASED_DTYPE_TEXT } });

/** A YAML/JSON file of run and engine options (flag names as keys); run-only keys such as base-url are accepted and ignored. */
export function readSimulateConfigFile(path: string): Record<string, unknown> {
  const { values, problems } = readConfigFile(path, [...Object.keys(RUN_FLAGS), ...SIM_ENGINE_KEYS]);
  if (problems.length) throw new UsageError(problems);
  return values;
}

/** "speculative decoding: acceptance rate 51.1%, 2.53 tokens per step" when the engine speculates. */
function specLine(meta: Readonly<Record<string, unknown>>): string {
  const sd = (meta.simulation as { spec_decode?: { acceptance_rate: number; mean_accepted_tokens_per_step: number } } | undefined)?.spec_decode;
  return sd ? `\nspeculative decoding: acceptance rate ${(sd.acceptance_rate * 100).toFixed(1)}%, ${sd.mean_accepted_tokens_per_step.toFixed(2)} tokens per step` : '';
}

export function registerSimulate(program: Command, out: Out): void {
  const cmd = program
    .command('simulate')
    .description('predict a benchmark on the engine model with a virtual clock (no server, no GPU): same options and output files as run')
    .option('--config <file>', 'YAML or JSON file of options (run and engine keys); flags override it');
  addFlags(cmd, SIMULATE_RUN_FLAGS);
  addFlags(cmd, ENGINE_FLAGS);
  addRefusedShardFlags(cmd);
  cmd.action(async () => {
    const problems: string[] = [];
    const engineFlags = givenFlags(cmd, ENGINE_FLAGS, problems);
    if (problems.length) throw new UsageError(problems);
    const file = cmd.opts().config as string | undefined;
    const values = { ...(file ? readSimulateConfigFile(file) : {}), ...givenFlags(cmd, SIMULATE_RUN_FLAGS), ...givenFlags(cmd, SHARD_FLAGS), ...engineFlags };
    const resolved = resolveSimulate(values);
    const c = resolved.run.config;
    if (resolved.ignored.length)
      out.err.write(`tokenflood simulate: ignored (not modelled): ${resolved.ignored.map((k) => `--${toKebab(k)}`).join(', ')}\n`);
    // One prediction: the engine model is deterministic, repeats would differ only in their prompts' text.
    if (c.runs > 1) out.err.write(`tokenflood simulate: --runs: ignored, one prediction is made (repeat predictions with sweep --simulate --runs N, measurements with run --runs N)\n`);
    const wallS = (meta: Readonly<Record<string, unknown>>) => ((meta.simulation as { wall_ms: number }).wall_ms / 1000).toFixed(2);
    // --reporter as in run (cli/reporters.ts): a simulation has no live display unless one is named.
    const choice = chooseReporters(c.reporter, c);
    if (choice.end === 'json') c.json = true;
    await simulate(resolved, {
      reporters: [
        { name: 'workload warnings', runEnd: (e) => void out.err.write(workloadWarningText(e.summary.run.workload as Record<string, unknown> | undefined, 'tokenflood simulate: ')) },
        ...(choice.displays === 'auto' ? [] : displayReporters(choice, out.err)),
        terminalReporter(c, endOut(choice, out), (s, meta) => `${renderSummary(s)}${specLine(meta)}\n\nsimulated in ${wallS(meta)} s of wall time`),
      ],
    });
  });
}
