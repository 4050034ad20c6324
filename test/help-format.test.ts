// Every command's --help in one layout: wrapped to 80 columns (or the terminal), each option described once, lowercase wording, one way to show defaults and choices.
import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Command } from 'commander';
import { buildProgram } from '../src/cli/program.js';
import { capture } from './io-capture.js';
import { EVAL_RUN_DEFAULTS } from '../src/eval/options.js';
import { MAX_CHOICES_IN_TERM } from '../src/util/flags.js';

const CLI = join(__dirname, '..', 'dist', 'bin', 'tokenflood.js');
/** Width in characters (code points: "−" and "×" are one column each). */
const width = (line: string): number => [...line].length;

/** Each option's whole help item (term line and the wrapped lines under it, joined by spaces), by its flag term. */
function items(help: string): Map<string, { text: string; starts: number }> {
  const lines = help.split('\n');
  const out = new Map<string, { text: string; starts: number }>();
  for (let i = 0; i < lines.length; i++) {
    const m = /^  (-\S.*?)(?: {2,}(\S.*))?$/.exec(lines[i]);
    if (!m) continue;
    const parts = m[2] ? [m[2]] : [];
    for (let j = i + 1; j < lines.length && /^ {4,}\S/.test(lines[j]); j++) parts.push(lines[j].trim());
    const prev = out.get(m[1]);
    out.set(m[1], { text: parts.join(' '), starts: (prev?.starts ?? 0) + 1 });
  }
  return out;
}

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
    expect(all.map(([n]) => n)).toEqual(expect.arrayContaining(['run', 'report', 'sweep', 'compare', 'serve', 'capacity', 'simulate', 'dataset stats', 'merge', 'eval', 'k8s manifest', 'k8s collect']));
  });

  for (const [name, cmd] of all)
    it(`tokenflood ${name} --help`, () => {
      const help = cmd.helpInformation();
      const lines = help.split('\n');
      const found = items(help);
      const problems: string[] = [];
      const desc = cmd.description();
      if (!startsConsistently(desc)) problems.push(`command description starts with a capital: "${desc}"`);
      for (const l of lines) if (width(l) > 80) problems.push(`line of ${width(l)} columns: "${l}"`);
      for (const o of cmd.options) {
        // Hidden options (accepted only to refuse them with a clear message, e.g. sweep --shard) have no help line.
        if (o.hidden) {
          if (found.has(o.flags)) problems.push(`${o.flags}: hidden but shown in the help`);
          continue;
        }
        // One item per option: the flag term, then its whole description (wrapped under it).
        const own = found.get(o.flags);
        if (own?.starts !== 1) {
          problems.push(`${o.flags}: expected exactly one help item, found ${own?.starts ?? 0}`);
          continue;
        }
        const text = own.text;
        if (!o.description || o.description === o.attributeName()) problems.push(`${o.flags}: not described`);
        if (!startsConsistently(text)) problems.push(`${o.flags}: description starts with a capital: "${text}"`);
        if (/\(default:|default: "|\(choices:/.test(text)) problems.push(`${o.flags}: default or choices not in the "(default X)" form: "${text}"`);
        if ((text.match(/\(default /g) ?? []).length > 1) problems.push(`${o.flags}: default shown twice`);
        if (/\(default \[\]\)/.test(text)) problems.push(`${o.flags}: shows an empty default`);
        // A few choices go in the term (--transport <auto|h1|undici>), more in the description, so the term stays short.
        const termChoices = /<([^>]*\|[^>]*)>/.exec(o.flags)?.[1].split('|') ?? [];
        if (termChoices.length > MAX_CHOICES_IN_TERM) problems.push(`${o.flags}: ${termChoices.length} choices in the flag term`);
        if (o.argChoices && !o.argChoices.every((c) => o.flags.includes(c) || text.includes(c))) problems.push(`${o.flags}: choices ${o.argChoices.join('|')} not listed`);
        if (/ \[[a-z0-9]+(\|[a-z0-9]+)+\]/.test(text)) problems.push(`${o.flags}: choices in the "[a|b]" form`);
        // A value flag whose default is known to commander shows it, the same way as the rest.
        const v = o.defaultValue as unknown;
        if (v !== undefined && typeof v !== 'boolean' && !o.negate && !(Array.isArray(v) && v.length === 0) && !text.includes('(default '))
          problems.push(`${o.flags}: default ${JSON.stringify(v)} not shown`);
      }
      expect(problems).toEqual([]);
    });

  it('eval --help shows the defaults eval runs with (concurrency 16, temperature 0, max_tokens 8192), not run\'s', () => {
    const evalCmd = program.commands.find((c) => c.name() === 'eval')!;
    const help = items(evalCmd.helpInformation());
    expect(help.get('--concurrency <n>')?.text).toMatch(new RegExp(`\\(default ${EVAL_RUN_DEFAULTS.concurrency} when no --rate\\)$`));
    expect(help.get('--temperature <t>')?.text).toMatch(/\(default 0\)$/);
    expect(help.get('--max-tokens <n>')?.text).toMatch(/\(default 8192\)$/);
    expect(help.get('--top-p <p>')?.text).toMatch(/\(default 1\)$/);
    expect(help.get('--seed <n>')?.text).toMatch(/\(default 1234\)$/);
    // run's own help is unchanged.
    const run = items(program.commands.find((c) => c.name() === 'run')!.helpInformation());
    expect(run.get('--concurrency <n>')?.text).toMatch(/\(default 1 when no --rate\)$/);
    expect(run.get('--temperature <t>')?.text).not.toMatch(/default/);
  });

  it('serve and simulate spell unit names as docs/sim.md does: --kv-offload-gib, --pcie-gbps, --disagg-link-gbps', () => {
    for (const name of ['serve', 'simulate']) {
      const help = program.commands.find((c) => c.name() === name)!.helpInformation();
      for (const f of ['--kv-offload-gib <n>', '--pcie-gbps <n>', '--disagg-link-gbps <n>']) expect(help, name).toContain(`  ${f} `);
      expect(help).not.toMatch(/gi-b|g-bps/);
    }
  });

  it('merge, compare and k8s say what every value option does when not given: a default or "required"', () => {
    const problems: string[] = [];
    for (const [name, cmd] of all.filter(([n]) => /^(merge|compare|k8s)/.test(n)))
      for (const [term, { text }] of items(cmd.helpInformation()))
        if (term.includes('<') && !/\(default [^)]|\(required\)/.test(text)) problems.push(`${name} ${term}: "${text}"`);
    expect(problems).toEqual([]);
  });

  it('wraps to the terminal width when stdout is one (process.stdout.columns), never wider', () => {
    const run = buildProgram(capture().io).commands.find((c) => c.name() === 'run')!;
    run.configureOutput({ getOutHelpWidth: () => 120 });
    const lines = run.helpInformation().split('\n');
    expect(Math.max(...lines.map(width))).toBeLessThanOrEqual(120);
    expect(Math.max(...lines.map(width))).toBeGreaterThan(100);
  });

  it('every command\'s --help, run as dist/bin/tokenflood.js with stdout not a terminal, fits 80 columns', async () => {
    const names = [[], ...all.map(([n]) => n.split(' ')), ['k8s']];
    const run = promisify(execFile);
    const problems: string[] = [];
    // Four at a time: enough to be quick, few enough for a loaded 2-core machine.
    for (let i = 0; i < names.length; i += 4)
      await Promise.all(
        names.slice(i, i + 4).map(async (n) => {
          const { stdout } = await run(process.execPath, [CLI, ...n, '--help'], { env: { ...process.env, COLUMNS: '200' } });
          if (!stdout.includes('Usage: tokenflood')) problems.push(`${n.join(' ')}: no usage`);
          for (const l of stdout.split('\n')) if (width(l) > 80) problems.push(`${n.join(' ') || '(none)'}: ${width(l)} columns: "${l}"`);
        }),
      );
    expect(problems).toEqual([]);
  }, 60_000);
});
