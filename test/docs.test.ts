// The docs stay true: every flag of every command is documented on that command's page.
import { describe, it, expect } from 'vitest';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { buildProgram } from '../src/cli/program.js';
import { capture } from './io-capture.js';

const docs = join(__dirname, '..', 'docs', 'commands');

describe('docs', () => {
  const program = buildProgram(capture().io);
  for (const cmd of program.commands) {
    it(`docs/commands/${cmd.name()}.md documents every flag of \`tokenflood ${cmd.name()}\``, () => {
      const file = join(docs, `${cmd.name()}.md`);
      expect(existsSync(file), file).toBe(true);
      const text = readFileSync(file, 'utf8');
      const options = [...cmd.options, ...cmd.commands.flatMap((c) => c.options)];
      const missing = options.map((o) => o.long!).filter((f) => f && f !== '--help' && !text.includes(f));
      expect(missing).toEqual([]);
    });
  }
  it('the README links every command page', () => {
    const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');
    for (const cmd of program.commands) expect(readme).toContain(`docs/commands/${cmd.name()}.md`);
  });
});
