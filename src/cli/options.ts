// Build commander options from a flag table, and pick out only the flags the user actually gave.
import { Command, Option } from 'commander';
import type { FlagSpec } from '../config/flags.js';

export function addFlags(cmd: Command, table: Record<string, FlagSpec>): void {
  for (const [key, spec] of Object.entries(table)) {
    const opt = new Option(spec.flag, spec.help);
    if (spec.repeatable) opt.argParser((v: string, prev: string[] | undefined) => [...(prev ?? []), v]);
    // Commander names options after the flag; keep the config key as the attribute name.
    opt.attributeName = () => key;
    cmd.addOption(opt);
  }
}

/** Values of flags given on the command line (defaults left to the schema, so config files can set them). */
export function givenFlags(cmd: Command, table: Record<string, FlagSpec>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const values = cmd.opts();
  for (const key of Object.keys(table)) {
    const src = cmd.getOptionValueSource(key);
    if (src === 'cli' || src === 'env') out[key] = values[key];
  }
  return out;
}
