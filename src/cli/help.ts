// One --help format for every command: one line per option, choices in the flag term, defaults as "(default X)".
import type { Command, Option } from 'commander';

/** An option's help text with its default in the one form every command uses (also used for docs/commands/*.md). */
export function optionHelp(o: Option): string {
  const d = o.description;
  const v = o.defaultValue as unknown;
  const hidden = v === undefined || o.negate || typeof v === 'boolean' || (Array.isArray(v) && v.length === 0);
  const shown = o.defaultValueDescription ?? (hidden ? undefined : Array.isArray(v) ? v.join(',') : String(v));
  return shown === undefined || d.includes('(default ') ? d : `${d} (default ${shown})`;
}

/** Apply the format to `cmd` and every command under it. Long lines are not wrapped, so each option is one greppable line. */
export function applyHelpFormat(cmd: Command): void {
  cmd.configureHelp({ optionDescription: optionHelp, minWidthToWrap: Number.MAX_SAFE_INTEGER });
  for (const c of cmd.commands) applyHelpFormat(c);
}
