// Worked examples stay true: docs/capacity.md's outputs are what the command prints now; calibrate's example profile has every fitted constant.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { CALIBRATED_PARAMS } from '../src/calibrate/params.js';
import { toKebab } from '../src/util/parse.js';
import { capture } from './io-capture.js';

const docs = join(__dirname, '..', 'docs');

/** Fenced blocks of a page whose first line is `$ tokenflood <command> …`: the argv and the output under it. */
function examples(page: string, command: string): { argv: string[]; output: string }[] {
  const text = readFileSync(join(docs, page), 'utf8');
  return [...text.matchAll(/```\n\$ tokenflood (.+)\n([\s\S]*?)```/g)].map((m) => ({ argv: m[1].trim().split(/\s+/), output: m[2] })).filter((e) => e.argv[0] === command);
}

describe('docs/capacity.md worked examples', () => {
  const found = examples('capacity.md', 'capacity');
  it('has the three worked examples (Llama-3.1-8B, DeepSeek-V3, the practice example)', () => expect(found).toHaveLength(3));
  // capacity is a pure computation: the same flags print the same text (re-run the command and paste it when the engine changes).
  it.each(found.map((e) => [e.argv.join(' '), e] as const))('$ tokenflood %s prints what the page shows', async (_cmd, e) => {
    const c = capture();
    const code = await main(e.argv, c.io);
    expect(code, c.err).toBe(0);
    expect(c.out).toBe(e.output);
  });
});

describe('docs/commands/calibrate.md example', () => {
  const text = readFileSync(join(docs, 'commands', 'calibrate.md'), 'utf8');
  const yaml = /```yaml\n(# tokenflood engine profile[\s\S]*?)```/.exec(text)?.[1] ?? '';
  const printed = examples('commands/calibrate.md', 'calibrate')[0]?.output ?? '';
  it.each(CALIBRATED_PARAMS.map((p) => toKebab(p.option)))('shows the fitted %s in the printed table and the profile', (key) => {
    expect(yaml).toMatch(new RegExp(`^${key}: [0-9.]+$`, 'm'));
    expect(printed).toMatch(new RegExp(`^  ${key} +[0-9.]+  \\(default [0-9.]+\\)$`, 'm'));
  });
});
