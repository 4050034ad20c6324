// `tokenflood run`: one benchmark against a server (or the embedded simulated server).
import { Command } from 'commander';
import { RUN_FLAGS } from '../config/schema.js';
import { resolveRunConfig } from '../config/load.js';
import { run, RunWriteError, type RunResult } from '../run.js';
import type { RunConfig } from '../config/schema.js';
import { addFlags, givenFlags } from '../config/flags.js';
import { renderSummary } from '../report/terminal.js';
import { evaluateSlo, parseSlo, describeSloChecks } from '../metrics/slo.js';
import { recordsOf, REQUESTS_JSONL } from '../report/results-dir.js';
import { join } from 'node:path';
import { startProgress } from '../report/progress.js';
import { setExitCode, type Out } from './io.js';
import { safeTerminalText } from '../report/format.js';
import { stripControls } from '../util/terminal-text.js';
import { workloadWarningText } from './workload-warnings.js';

/**
 * Print a finished run: one JSON document with --json, else the rendered table; with --slo, the verdict and
 * goodput (and exit 1 under --fail-on-slo when an objective was missed).
 */
export function printResult(result: RunResult, c: RunConfig, out: Out, rendered: string): void {
  const slo = c.slo ? evaluateSlo(result.summary, recordsOf(join(result.outDir, REQUESTS_JSONL)), parseSlo(c.slo)) : undefined;
  if (slo && c.failOnSlo && !slo.passed) setExitCode(1);
  if (c.json) {
    out.out.write(JSON.stringify(slo ? { ...result.summary, slo } : result.summary, null, 2) + '\n');
    return;
  }
  out.out.write(`\n${stripControls(rendered)}\n`);
  if (slo) {
    out.out.write(`\nSLOs ${slo.passed ? 'met' : 'NOT met'}:\n${describeSloChecks(slo).map((l) => `  ${l}`).join('\n')}\n`);
    out.out.write(`goodput: ${slo.goodput_req_s.toFixed(2)} good req/s, ${slo.goodput_tok_s.toFixed(1)} good output tok/s (${(slo.good_fraction * 100).toFixed(1)}% of requests good)\n`);
  }
  // Only files written in full are announced (a write failure is reported separately, naming the file).
  const w = result.written;
  if (w.length) out.out.write(`\nwrote ${result.outDir}/${w.length > 1 ? `${w.slice(0, -1).join(', ')} and ${w.at(-1)}` : w[0]}\n`);
}

export function registerRun(program: Command, out: Out): void {
  const cmd = program
    .command('run')
    .description('run a benchmark against an OpenAI-compatible server (default the embedded simulated server)')
    .option('--config <file>', 'YAML or JSON file of options (keys are flag names); flags override it');
  addFlags(cmd, RUN_FLAGS);
  cmd.action(async () => {
    const flags = givenFlags(cmd, RUN_FLAGS);
    const resolved = resolveRunConfig({ flags, configFile: cmd.opts().config as string | undefined });
    const c = resolved.config;
    const info = c.json ? out.err : out.out;
    const ac = new AbortController();
    let stops = 0;
    let started = false;
    const onSignal = (sig: NodeJS.Signals) => {
      stops++;
      if (stops > 1) process.exit(sig === 'SIGINT' ? 130 : 143);
      // Before onStart (the preflight) nothing has been sent, so there is nothing to wait for.
      const inFlight = started ? `: no new requests; those in flight get up to ${c.gracePeriod} s (--grace-period) to finish, then are cancelled and recorded` : '';
      out.err.write(`\n${sig}: stopping${inFlight} (press Ctrl-C again to exit now)\n`);
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
            started = true;
            info.write(
              s.embedded
                ? `tokenflood: no --base-url given, started the embedded simulated server at ${s.baseUrl}\n`
                : `tokenflood: target ${safeTerminalText(s.baseUrl, 400)}\n`,
            );
            info.write(`model ${safeTerminalText(s.model, 200)}, results in ${s.outDir}\n`);
            out.err.write(workloadWarningText(s.workload, 'tokenflood: '));
            total = s.total;
          },
          onAggregator: (agg) => {
            if (!c.quiet) stopProgress = startProgress(agg, total, out.err);
          },
        },
      }).catch((e: unknown) => {
        // A write failure still shows what was measured; main then prints the error (naming the file) and exits 1.
        if (e instanceof RunWriteError) {
          stopProgress?.();
          printResult(e.result, c, out, renderSummary(e.result.summary));
        }
        throw e;
      });
      stopProgress?.();
      const ch = result.summary.client;
      if (ch?.client_bound)
        out.err.write(`tokenflood: WARNING: the client was too busy for its timings to be fully trusted (client_bound): ${ch.reasons.join('; ')}\n`);
      if (result.summary.run.stopped_reason === 'max_error_rate') {
        out.err.write(`tokenflood: ${String(result.summary.run.stop_message)}\n`);
        setExitCode(1);
      }
      printResult(result, c, out, renderSummary(result.summary));
    } finally {
      stopProgress?.();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  });
}
