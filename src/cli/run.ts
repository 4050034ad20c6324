// `tokenflood run`: one benchmark against a server (or the embedded simulated server).
import { Command } from 'commander';
import { RUN_FLAGS } from '../config/schema.js';
import { resolveRunConfig } from '../config/load.js';
import { run } from '../run.js';
import { addFlags, givenFlags } from './options.js';
import { renderSummary } from '../report/terminal.js';
import { startProgress } from '../report/progress.js';
import { setExitCode, type Out } from './io.js';

export function registerRun(program: Command, out: Out): void {
  const cmd = program
    .command('run')
    .description('run a benchmark against an OpenAI-compatible server (default: the embedded simulated server)')
    .option('--config <file>', 'YAML or JSON file of options (keys are flag names); flags override it');
  addFlags(cmd, RUN_FLAGS);
  cmd.action(async () => {
    const flags = givenFlags(cmd, RUN_FLAGS);
    const resolved = resolveRunConfig({ flags, configFile: cmd.opts().config as string | undefined });
    const c = resolved.config;
    const info = c.json ? out.err : out.out;
    const ac = new AbortController();
    let stops = 0;
    const onSignal = (sig: NodeJS.Signals) => {
      stops++;
      if (stops > 1) process.exit(sig === 'SIGINT' ? 130 : 143);
      out.err.write(`\n${sig}: stopping; in-flight requests are cancelled and recorded (press Ctrl-C again to exit now)\n`);
      setExitCode(sig === 'SIGINT' ? 130 : 143);
      ac.abort();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    let stopProgress: (() => void) | undefined;
    let total: number | undefined;
    try {
      const result = await run(resolved, {
        signal: ac.signal,
        hooks: {
          onStart: (s) => {
            info.write(
              s.embedded
                ? `tokenflood: no --base-url given, started the embedded simulated server at ${s.baseUrl}\n`
                : `tokenflood: target ${s.baseUrl}\n`,
            );
            info.write(`model ${s.model}, results in ${s.outDir}\n`);
            total = s.total;
          },
          onAggregator: (agg) => {
            if (!c.quiet) stopProgress = startProgress(agg, total, out.err);
          },
        },
      });
      stopProgress?.();
      if (result.summary.run.stopped_reason === 'max_error_rate') {
        out.err.write(`tokenflood: ${String(result.summary.run.stop_message)}\n`);
        setExitCode(1);
      }
      if (c.json) out.out.write(JSON.stringify(result.summary, null, 2) + '\n');
      else out.out.write(`\n${renderSummary(result.summary)}\n\nwrote ${result.outDir}/requests.jsonl and summary.json\n`);
    } finally {
      stopProgress?.();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  });
}
