// tokenflood eval: the command and its flags; what it does when run is in eval-action.ts, loaded then.
import type { Command } from 'commander';
import { RUN_FLAGS } from '../config/schema.js';
import { addFlags, withShownDefaults } from '../util/flags.js';
import { addRefusedShardFlags, withoutShardFlags } from '../config/shard.js';
import { EVAL_FLAGS, EVAL_SHOWN_DEFAULTS } from '../eval/options.js';
import type { Out } from './io.js';

export function registerEval(program: Command, out: Out): void {
  const cmd = program
    .command('eval')
    .description('grade a set (gsm8k, math500-numeric, mmlu, gaokao-mcq or a JSONL file) against a server under run\'s load flags: accuracy per slice with 95% intervals, beside performance')
    .option('--config <file>', 'YAML or JSON file of run options (keys are flag names); flags override it');
  addFlags(cmd, EVAL_FLAGS);
  addFlags(cmd, withShownDefaults(withoutShardFlags(RUN_FLAGS), EVAL_SHOWN_DEFAULTS));
  addRefusedShardFlags(cmd);
  // The grading, sets and report code load only when the command runs: other commands pay nothing for them.
  cmd.action(async () => (await import('./eval-action.js')).evalAction(cmd, out));
}
