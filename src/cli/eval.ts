// tokenflood eval: the command and its flags; what it does when run is in eval-action.ts, loaded then.
import type { Command } from 'commander';
import { RUN_FLAGS } from '../config/schema.js';
import { addFlags, withShownDefaults } from '../util/flags.js';
import { Option } from 'commander';
import { SHARD_FLAGS, withoutShardFlags } from '../config/shard.js';
import { EVAL_FLAGS, EVAL_SHOWN_DEFAULTS } from '../eval/options.js';
import type { Out } from './io.js';

export function registerEval(program: Command, out: Out): void {
  const cmd = program
    .command('eval')
    .description('grade a set (gsm8k, math500-numeric, mmlu, gaokao-mcq or a JSONL file) against a server under run\'s load flags: accuracy per slice with 95% intervals, beside performance')
    .option('--config <file>', 'YAML or JSON file of run options (keys are flag names); flags override it');
  addFlags(cmd, EVAL_FLAGS);
  addFlags(cmd, withShownDefaults(withoutShardFlags(RUN_FLAGS), EVAL_SHOWN_DEFAULTS));
  // eval's own --shard I/N splits the set (EVAL_FLAGS); --start-at is accepted only to be refused with its reason.
  const startAt = new Option(SHARD_FLAGS.startAt.flag, SHARD_FLAGS.startAt.help).hideHelp();
  startAt.attributeName = () => SHARD_FLAGS.startAt.key;
  cmd.addOption(startAt);
  // The grading, sets and report code load only when the command runs: other commands pay nothing for them.
  cmd.action(async () => (await import('./eval-action.js')).evalAction(cmd, out));
}
