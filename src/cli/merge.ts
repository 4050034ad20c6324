// `tokenflood merge SHARD_DIRS... --out DIR`: the shards of one run (--shard I/N) merged into one results directory.
import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { mergeShards } from '../merge/merge.js';
import { renderSummary } from '../report/terminal.js';
import { stripControls } from '../util/terminal-text.js';
import type { Out } from './io.js';
import { described } from './help.js';
import { areEvalShards, mergeEvalShards } from '../eval-run/merge.js';
import { renderEval } from '../eval/terminal.js';

export function registerMerge(program: Command, out: Out): void {
  program
    .command('merge')
    .description('merge the results directories of the shards of one run (--shard I/N) into one: requests.jsonl, summary.json and report.html')
    .argument('<dirs...>', 'the shards\' results directories, one per shard 0..N-1')
    .addOption(described('--out <dir>', 'directory to write the merged run to', 'required'))
    .option('--overwrite', 'allow writing into a directory that already holds a run')
    .option('--json', 'print the merged summary as one JSON document on stdout')
    .action(async (dirs: string[], o: { out?: string; overwrite?: boolean; json?: boolean }) => {
      if (!o.out) throw new UsageError(['merge: --out: give the directory to write the merged run to']);
      // The shards of `eval --shard I/N`: one eval.json and eval.jsonl, graded as one run.
      if (areEvalShards(dirs)) {
        const doc = mergeEvalShards(dirs, o.out, o.overwrite);
        if (o.json) return void out.out.write(JSON.stringify(doc, null, 2) + '\n');
        return void out.out.write(`${stripControls(renderEval(doc))}\n\nmerged ${dirs.length} eval shards; wrote ${o.out}/eval.json and eval.jsonl\n`);
      }
      const r = await mergeShards(dirs, o.out, { overwrite: o.overwrite });
      for (const w of r.warnings) out.err.write(`warning: ${stripControls(w)}\n`);
      if (o.json) return void out.out.write(JSON.stringify(r.summary, null, 2) + '\n');
      out.out.write(`${stripControls(renderSummary(r.summary))}\n\nmerged ${dirs.length} shards; wrote ${r.outDir}/${r.written.slice(0, -1).join(', ')} and ${r.written.at(-1)}\n`);
    });
}
