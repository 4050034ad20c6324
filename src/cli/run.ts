// `tokenflood run`: one benchmark against a server (or the embedded simulated server).
import { Command } from 'commander';
import { RUN_FLAGS } from '../config/schema.js';
import { EXIT_SATURATED } from '../config/statistics.js';
import { resolveRunConfig } from '../config/load.js';
import { run, type Reporter, type RunResult } from '../run.js';
import type { RunConfig } from '../config/schema.js';
import { addFlags, givenFlags } from '../util/flags.js';
import { addVllmAliases, givenVllmAliases, mapVllmFlags } from '../config/vllm-aliases.js';
import { UsageError } from '../errors.js';
import { ValidationError } from '../drivers/validate-ladder.js';
import { renderSummary } from '../report/terminal.js';
import { evaluateSlo, parseSlo, describeSloChecks } from '../metrics/slo.js';
import { recordsOf, requestsFile } from '../report/results-dir.js';
import { join } from 'node:path';
import type { RunArtifacts } from '../artifacts/run-artifacts.js';
import { progressReporter } from '../report/progress.js';
import { terminalViewReporter } from '../report/live/terminal-view-reporter.js';
import type { LiveOutputs } from '../report/live/outputs.js';
import { wantsLiveOutputs } from '../config/live-metrics.js';
import type { Summary } from '../metrics/summary.js';
import { setExitCode, type Out } from './io.js';
import { safeTerminalText } from '../report/format.js';
import { stripControls } from '../util/terminal-text.js';
import { workloadWarningText } from './workload-warnings.js';
import { promptCacheWarning } from '../metrics/prompt-cache.js';
import { endCliDashboard, startCliDashboard } from './ui.js';
import { onStopSignals } from './signals.js';
import { chooseReporters, discard, displayReporters, endOut } from './reporters.js';
import { shortBaselineFor } from './short-baseline-auto.js';

/**
 * Print a finished run: one JSON document with --json, else the rendered table; with --slo, the verdict and
 * goodput (and exit 1 under --fail-on-slo when an objective was missed).
 */
export function printResult(result: Pick<RunResult, 'summary' | 'outDir' | 'written'> & { artifacts?: Pick<RunArtifacts, 'slo'> }, c: RunConfig, out: Out, rendered: string): void {
  const slo = c.slo ? sloVerdict(result, parseSlo(c.slo)) : undefined;
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

/** The run's own verdict when it counted one for these SLOs (no record read back), else counted from requests.jsonl. */
function sloVerdict(result: Parameters<typeof printResult>[0], slo: ReturnType<typeof parseSlo>) {
  const own = result.artifacts?.slo;
  return own && own.text === slo.text ? own.result : evaluateSlo(result.summary, recordsOf(requestsFile(result.outDir)), slo);
}

/** The start lines: where requests go, the model, where results are, and what the workload had to skip. */
export function startReporter(out: Out, info: NodeJS.WritableStream, prefix: string, onStart: (total: number | undefined) => void = () => {}): Reporter {
  let announced = false;
  const announce = (s: { baseUrl: string; embedded: boolean }) => {
    if (announced) return;
    announced = true;
    info.write(
      s.embedded
        ? `tokenflood: no --base-url given, started the embedded simulated server at ${s.baseUrl}\n`
        : `${prefix}target ${safeTerminalText(s.baseUrl, 400)}\n`,
    );
  };
  return {
    name: 'start',
    targetOpen: announce,
    runStart: (s) => {
      announce(s);
      info.write(`model ${safeTerminalText(s.model, 200)}, results in ${s.outDir}\n`);
      out.err.write(workloadWarningText(s.workload, prefix));
      onStart(s.total);
    },
  };
}

/**
 * The end of a run on the terminal: warnings about the client and an early stop, then the summary table (or the one
 * --json document on stdout), SLO verdicts and the files written. Also runs when a results file could not be
 * written, so what was measured is still shown; main then prints the error naming the file.
 */
export function terminalReporter(c: RunConfig, out: Out, render: (s: Summary, meta: Readonly<Record<string, unknown>>) => string = (s) => renderSummary(s)): Reporter {
  return {
    name: 'terminal',
    runEnd: (e) => {
      const ch = e.summary.client;
      if (ch?.client_bound)
        out.err.write(`tokenflood: WARNING: the client was too busy for its timings to be fully trusted (client_bound): ${ch.reasons.join('; ')}\n`);
      const cached = promptCacheWarning(e.summary);
      if (cached) out.err.write(`tokenflood: WARNING: ${safeTerminalText(cached, 600)}\n`);
      if (e.summary.run.stopped_reason === 'saturated') {
        out.err.write(`tokenflood: ${String(e.summary.run.stop_message)}\n`);
        setExitCode(EXIT_SATURATED);
      } else if (e.summary.saturation?.saturated) out.err.write(`tokenflood: WARNING: ${e.summary.saturation.detail} (docs/metrics.md#over-saturation)\n`);
      if (e.summary.run.stopped_reason === 'max_error_rate') {
        out.err.write(`tokenflood: ${String(e.summary.run.stop_message)}\n`);
        setExitCode(1);
      }
      printResult({ summary: e.summary, outDir: e.outDir, written: [...e.files.written], artifacts: e.artifacts }, c, out, render(e.summary, e.meta));
    },
  };
}

/** --metrics-port and --push KIND=URL, started before the run (a port in use is exit 2, nothing sent); loaded only when asked for. */
export async function startLiveOutputsFor(c: RunConfig, out: Out, sweep = false): Promise<LiveOutputs | undefined> {
  if (!wantsLiveOutputs(c)) return undefined;
  const { startLiveOutputs } = await import('../report/live/outputs.js');
  return startLiveOutputs(c, { sweep, notice: (line) => out.err.write(`tokenflood: ${line}\n`) });
}

export function registerRun(program: Command, out: Out): void {
  const cmd = program
    .command('run')
    .description('run a benchmark against an OpenAI-compatible server (default the embedded simulated server)')
    .option('--config <file>', 'YAML or JSON file of options (keys are flag names); flags override it');
  addFlags(cmd, RUN_FLAGS);
  addVllmAliases(cmd);
  cmd.action(async () => {
    // A pasted `vllm bench serve` command line: its flags become tokenflood's (docs/vllm-compat.md).
    const vllm = mapVllmFlags(givenVllmAliases(cmd), givenFlags(cmd, RUN_FLAGS));
    if (vllm.problems.length) throw new UsageError(vllm.problems);
    const resolved = resolveRunConfig({ flags: vllm.flags, configFile: cmd.opts().config as string | undefined });
    for (const n of vllm.notes) out.err.write(`tokenflood: vLLM flags: ${n}\n`);
    for (const n of resolved.notes ?? []) out.err.write(`tokenflood: ${n}\n`);
    const c = resolved.config;
    // --short-baseline, or a mixed-length workload: a short-only baseline first, or a note why not (planned lengths only, nothing sent).
    const baseline = shortBaselineFor(resolved);
    if (baseline.kind === 'skip') out.err.write(`tokenflood: ${baseline.note}\n`);
    // --reporter NAME (repeatable): what the terminal shows; `json` is --json.
    const choice = chooseReporters(c.reporter, c);
    if (choice.end === 'json') c.json = true;
    const shown = endOut(choice, out);
    const info = !choice.start ? discard() : c.json ? out.err : out.out;
    let started = false;
    // Before onStart (the preflight) nothing has been sent, so there is nothing to wait for.
    const stopper = onStopSignals(out, () => `stopping${c.runs > 1 ? ', no further runs' : ''}${started ? `: no new requests; those in flight get up to ${c.gracePeriod} s (--grace-period) to finish, then are cancelled and recorded` : ''}`);
    let live: LiveOutputs | undefined;
    // --ui: the dashboard's stop button takes the Ctrl-C path.
    const repeated = c.runs > 1;
    const dashboard = await startCliDashboard(c, out, info, stopper.stop, repeated ? 'many' : 'one');
    try {
      live = await startLiveOutputsFor(c, out, repeated);
      // Outputs are reporters on the run's events: start lines, the live view (stderr), the summary or --json, live metrics.
      const reporters = [startReporter(out, info, 'tokenflood: ', () => (started = true)), ...displayReporters(choice, out.err), ...(live ? [live.reporter()] : []), ...(dashboard ? [dashboard.reporter] : [])];
      if (repeated) {
        // --runs N (docs/commands/run.md#repeated-runs): each run's own reporters, its figures labelled run-K.
        const { runRepeatedCli } = await import('./run-repeated.js');
        await runRepeatedCli(resolved, {
          info,
          shown,
          out,
          signal: stopper.signal,
          reporters: (k) => [
            ...(k === 1 ? [startReporter(out, info, 'tokenflood: ', () => (started = true))] : []),
            ...displayReporters(choice, out.err, `[run ${k}/${c.runs}] `),
            ...(live ? [live.reporter(`run-${k}`)] : []),
            ...(dashboard ? [dashboard.reporter] : []),
          ],
        });
      } else if (c.evalUnderLoad) {
        // The summary is printed after the idle baseline, with the accuracy per level (docs/eval.md#under-load).
        const { runUnderLoad, renderLevels } = await import('./eval-under-load.js');
        await runUnderLoad(resolved, reporters, out, (res, ev) => {
          if (c.json) return void shown.out.write(JSON.stringify({ ...res.summary, eval: ev }, null, 2) + '\n');
          printResult(res, c, shown, `${renderSummary(res.summary)}\n\n${renderLevels(ev)}`);
        }, stopper.signal);
      } else if (baseline.kind === 'run') {
        // docs/metrics.md#short-vs-long-baseline: a short-only run first, then the mixed one and the slowdown.
        const { runWithShortBaseline } = await import('./short-baseline.js');
        if (baseline.note) out.err.write(`tokenflood: ${baseline.note}\n`);
        await runWithShortBaseline(resolved, baseline.plan, {
          signal: stopper.signal,
          // Live metrics and the dashboard follow the mixed run only: their counters equal its requests.jsonl.
          reporters: (phase) => (phase === 'baseline' ? [startReporter(out, info, 'tokenflood: ', () => (started = true)), ...displayReporters(choice, out.err, '[short-only baseline] ')] : [...reporters, terminalReporter(c, shown)]),
          print: (text) => (c.json ? undefined : void shown.out.write(text)),
          notice: (line) => out.err.write(`tokenflood: ${line}\n`),
        });
      } else await run(resolved, { signal: stopper.signal, reporters: [...reporters, terminalReporter(c, shown)], liveLoad: c.ui });
      // Also after Ctrl-C stopped the run: its final counts are worth a scrape.
      stopper.lingering = new AbortController();
      await live?.close(stopper.lingering.signal);
      live = undefined;
    } catch (e) {
      // A failed validation ladder with --json: its verdicts are the one JSON document, then main prints the message (exit 4).
      if (e instanceof ValidationError && c.json) shown.out.write(JSON.stringify({ validation: e.result }, null, 2) + '\n');
      throw e;
    } finally {
      // A run that failed before or while running closes its outputs at once (no --metrics-linger).
      await live?.close(AbortSignal.abort());
      stopper.dispose();
      await endCliDashboard(dashboard, out, () => stopper.stops > 0);
    }
  });
}
