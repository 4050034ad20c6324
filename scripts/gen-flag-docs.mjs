// Regenerate the "All flags" table of every docs/commands/<command>.md from the CLI itself (run after `npm run build`).
// The table sits between <!-- flags:start --> and <!-- flags:end --> markers; pages without markers get it appended.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildProgram } from '../dist/cli/program.js';
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
  // Hidden options are accepted only to be refused with a message (sweep's --shard): the page says so in prose.
  const rowsOf = (options) => options.filter((o) => o.long !== '--help' && !o.hidden).map((o) => `| \`${esc(o.flags)}\` | ${esc(optionHelp(o))} |`);
  const head = ['| flag | meaning |', '|---|---|'];
  // A command's own flags; each visible subcommand's (`k8s manifest`, `k8s collect`) in a table of its own, so
  // flags of one subcommand are not read as another's.
  const subs = cmd.commands.filter((c) => !c._hidden && rowsOf(c.options).length);
  const own = rowsOf(cmd.options);
  const rows = [...own, ...subs.flatMap((c) => rowsOf(c.options))];
  const body = subs.length > 1 || (subs.length && own.length)
    ? [...(own.length ? [...head, ...own, ''] : []), ...subs.flatMap((c) => [`**\`tokenflood ${cmd.name()} ${c.name()}\`**`, '', ...head, ...rowsOf(c.options), ''])]
    : [...head, ...rows, ''];
  const table = [START, '', ...body, END].join('\n');
  let text = readFileSync(file, 'utf8');
  if (text.includes(START) && text.includes(END)) text = text.slice(0, text.indexOf(START)) + table + text.slice(text.indexOf(END) + END.length);
  else text = `${text.trimEnd()}\n\n## All flags\n\nGenerated from the CLI (\`node scripts/gen-flag-docs.mjs\`).\n\n${table}\n`;
  writeFileSync(file, text);
  console.log(`${file}: ${rows.length} flags`);
}
