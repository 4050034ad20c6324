// Every command's --help in one format: each option on one line and described, lowercase wording, one way to show defaults and choices.
import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { buildProgram } from '../src/cli/main.js';
import { capture } from './io-capture.js';

/** Every command that has its own options, with its full name (`dataset stats`). */
function commands(c: Command, prefix: string[] = []): [string, Command][] {
  return c.commands.flatMap((sub) => {
    const name = [...prefix, sub.name()];
    return [...(sub.options.length ? [[name.join(' '), sub] as [string, Command]] : []), ...commands(sub, name)];
  });
}

/** Text may start with a capital only when its first word is an acronym or a name such as YAML, API, OpenAI, GPU. */
const startsConsistently = (text: string): boolean => /^[a-z<(-]/.test(text) || /^[A-Z][A-Za-z0-9]*[A-Z0-9]/.test(text);

describe('--help format', () => {
  const cap = capture();
  const program = buildProgram(cap.io);
  const all = commands(program);

  it('covers every command', () => {
    expect(all.map(([n]) => n)).toEqual(expect.arrayContaining(['run', 'report', 'sweep', 'compare', 'serve', 'capacity', 'simulate', 'dataset stats']));
  });

  for (const [name, cmd] of all)
    it(`tokenflood ${name} --help`, () => {
      const help = cmd.helpInformation();
      const lines = help.split('\n');
      const problems: string[] = [];
      const desc = cmd.description();
      if (!startsConsistently(desc)) problems.push(`command description starts with a capital: "${desc}"`);
      for (const o of cmd.options) {
        // Hidden options (accepted only to refuse them with a clear message, e.g. sweep --shard) have no help line.
        if (o.hidden) {
          if (lines.some((l) => l.startsWith(`  ${o.flags} `))) problems.push(`${o.flags}: hidden but shown in the help`);
          continue;
        }
        // One line per option: the flag term followed by its whole description.
        const own = lines.filter((l) => l.startsWith(`  ${o.flags} `));
        if (own.length !== 1) {
          problems.push(`${o.flags}: expected exactly one help line, found ${own.length}`);
          continue;
        }
        const text = own[0].slice(2 + o.flags.length).trim();
        const idx = lines.indexOf(own[0]);
        if (lines[idx + 1]?.match(/^\s{6,}\S/)) problems.push(`${o.flags}: description wrapped onto a second line`);
        if (!o.description || o.description === o.attributeName()) problems.push(`${o.flags}: not described`);
        if (!startsConsistently(text)) problems.push(`${o.flags}: description starts with a capital: "${text}"`);
        if (/\(default:|default: "|\(choices:/.test(text)) problems.push(`${o.flags}: default or choices not in the "(default X)" form: "${text}"`);
        if ((text.match(/\(default /g) ?? []).length > 1) problems.push(`${o.flags}: default shown twice`);
        if (/\(default \[\]\)/.test(text)) problems.push(`${o.flags}: shows an empty default`);
        if (o.argChoices && !o.argChoices.every((c) => o.flags.includes(c))) problems.push(`${o.flags}: choices ${o.argChoices.join('|')} not listed in the flag term`);
        if (/ \[[a-z0-9]+(\|[a-z0-9]+)+\]/.test(text)) problems.push(`${o.flags}: choices listed in the description instead of the flag term`);
        // A value flag whose default is known to commander shows it, the same way as the rest.
        const v = o.defaultValue as unknown;
        if (v !== undefined && typeof v !== 'boolean' && !o.negate && !(Array.isArray(v) && v.length === 0) && !text.includes('(default '))
          problems.push(`${o.flags}: default ${JSON.stringify(v)} not shown`);
      }
      expect(problems).toEqual([]);
    });
});
