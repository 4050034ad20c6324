// One-command start-up (src/cli/main.ts loads only the command argv names): the same help, errors and exit codes as the whole tree.
import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { LAZY_COMMANDS, main, programFor } from '../src/cli/main.js';
import { buildProgram } from '../src/cli/program.js';
import { capture } from './io-capture.js';

/** Every command path with its name words: ['run'], ['dataset', 'stats'], ... (hidden ones too). */
function paths(c: Command, prefix: string[] = []): string[][] {
  return c.commands.flatMap((sub) => [[...prefix, sub.name()], ...paths(sub, [...prefix, sub.name()])]);
}

/** stdout, stderr and the exit code of `tokenflood ...argv` run in this process. */
async function cli(argv: string[]): Promise<{ out: string; err: string; code: number }> {
  const cap = capture();
  const code = await main(argv, cap.io);
  return { out: cap.out, err: cap.err, code };
}

describe('one-command start-up', () => {
  const whole = buildProgram(capture().io);

  it('every top-level command of the whole tree has a loader of its own, and that loader registers only it', async () => {
    expect([...LAZY_COMMANDS].sort()).toEqual(whole.commands.map((c) => c.name()).sort());
    for (const name of LAZY_COMMANDS) {
      const p = await programFor([name], capture().io);
      expect(p.commands.map((c) => c.name())).toEqual([name]);
    }
    // No command, an option or an unknown word: the whole tree.
    for (const argv of [[], ['--help'], ['help', 'run'], ['rnu']]) expect((await programFor(argv, capture().io)).commands).toHaveLength(whole.commands.length);
  });

  it('prints the same --help for every command and subcommand as the whole tree does', async () => {
    for (const path of paths(whole)) {
      const lazy = await cli([...path, '--help']);
      const full = capture();
      await expect(buildProgram(full.io).parseAsync([...path, '--help'], { from: 'user' })).rejects.toMatchObject({ code: 'commander.helpDisplayed' });
      expect(lazy.code, path.join(' ')).toBe(0);
      expect(lazy.out, path.join(' ')).toBe(full.out);
      expect(lazy.out).toMatch(new RegExp(`Usage: tokenflood ${path.join(' ')}`));
    }
  });

  it('reports a bad flag with the same one message and exit 2, and the whole tree still answers the rest', async () => {
    const bad = await cli(['run', '--concurrency', 'many', '--requests', '1']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--concurrency/);
    expect(bad.out).toBe('');
    const unknown = await cli(['run', '--no-such-flag']);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/unknown option '--no-such-flag'/);
    const typo = await cli(['rnu']);
    expect(typo.code).toBe(2);
    expect(typo.err).toMatch(/unknown command 'rnu'/);
    const top = await cli(['--help']);
    expect(top.code).toBe(0);
    for (const c of whole.commands.filter((x) => !(x as unknown as { _hidden: boolean })._hidden)) expect(top.out).toContain(`  ${c.name()}`);
  });
});
