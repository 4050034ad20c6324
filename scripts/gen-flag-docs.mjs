// Regenerate the "All flags" table of every docs/commands/<command>.md from the CLI itself (run after `npm run build`).
// The table sits between <!-- flags:start --> and <!-- flags:end --> markers; pages without markers get it appended.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildProgram } from '../dist/cli/main.js';
import { optionHelp } from '../dist/cli/help.js';

const docs = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'commands');
const START = '<!-- flags:start -->';
const END = '<!-- flags:end -->';
const io = { out: process.stdout, err: process.stderr };
const esc = (s) => String(s).replace(/\|/g, '\\|').replace(/\n/g, ' ');

for (const cmd of buildProgram(io).commands) {
  const file = join(docs, `${cmd.name()}.md`);
  if (!existsSync(file)) {
    console.error(`missing ${file}`);
    continue;
  }
  // A command's own flags and those of its subcommands (`dataset stats`).
  const options = [...cmd.options, ...cmd.commands.flatMap((c) => c.options)];
  const rows = options
    // Hidden options are accepted only to be refused with a message (sweep's --shard): the page says so in prose.
    .filter((o) => o.long !== '--help' && !o.hidden)
    .map((o) => `| \`${esc(o.flags)}\` | ${esc(optionHelp(o))} |`);
  const table = [START, '', '| flag | meaning |', '|---|---|', ...rows, '', END].join('\n');
  let text = readFileSync(file, 'utf8');
  if (text.includes(START) && text.includes(END)) text = text.slice(0, text.indexOf(START)) + table + text.slice(text.indexOf(END) + END.length);
  else text = `${text.trimEnd()}\n\n## All flags\n\nGenerated from the CLI (\`node scripts/gen-flag-docs.mjs\`).\n\n${table}\n`;
  writeFileSync(file, text);
  console.log(`${file}: ${rows.length} flags`);
}
