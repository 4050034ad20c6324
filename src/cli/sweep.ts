// `tokenflood sweep`: a grid of runs (or an --auto search) against one server, collected under one directory.
import { Command } from 'commander';
import { addFlags, givenFlags } from '../util/flags.js';
import { addRefusedShardFlags, SHARD_FLAGS } from '../config/shard.js';
import { addVllmAliases, givenVllmAliases, mapVllmFlags, NOT_ON_SWEEP } from '../config/vllm-aliases.js';
import { UsageError } from '../errors.js';
import { setExitCode, type Out } from './io.js';
import { PASS_THROUGH_RUN_FLAGS, resolveSweepConfig, SWEEP_FLAGS } from '../sweep/config.js';
import { runSweep } from '../sweep/sweep.js';
import { pointLine, renderSweep } from '../sweep/terminal.js';
import { safeTerminalText } from '../report/format.js';
import { stripControls } from '../util/terminal-text.js';
import { progressReporter } from '../report/progress.js';
import type { Reporter } from '../report/events.js';
import { toKebab } from '../util/parse.js';
import { ENGINE_FLAGS } from './simulate.js';
import { promptCacheReporter, workloadWarningText } from './workload-warnings.js';
import { startLiveOutputsFor } from './run.js';
import { terminalViewReporter } from '../report/live/terminal-view-reporter.js';
import type { LiveOutputs } from '../report/live/outputs.js';
import { endCliDashboard, startCliDashboard } from './ui.js';
import { onStopSignals } from './signals.js';
import { chooseReporters, discard, endOut } from './reporters.js';

export function registerSweep(program: Command, out: Out): void {
  const cmd = program
    .command('sweep')
    .description('run a grid of load levels x input/output lengths (or --auto: find the limit) against one server; writes sweep.csv, sweep.json and report.html')
    .option('--config <file>', 'YAML or JSON sweep file (sweep keys and run keys); flags override it');
  addFlags(cmd, SWEEP_FLAGS);
  addFlags(cmd, PASS_THROUGH_RUN_FLAGS);
  // --simulate: the simulate command's engine options (--gpu, --model-profile, --tp, ...), parsed as it parses them.
  addFlags(cmd, ENGINE_FLAGS);
  addVllmAliases(cmd, NOT_ON_SWEEP);
  addRefusedShardFlags(cmd);
  cmd.action(async () => {
    // vLLM bench flags (docs/vllm-compat.md): --num-prompts and --goodput become the sweep's --requests and --slo, the rest run flags.
    const sweepFlags = givenFlags(cmd, SWEEP_FLAGS);
    const vllm = mapVllmFlags(givenVllmAliases(cmd), { ...givenFlags(cmd, PASS_THROUGH_RUN_FLAGS), ...givenFlags(cmd, SHARD_FLAGS), requests: sweepFlags.requests, slo: sweepFlags.slo }, { sweep: true });
    if (vllm.problems.length) throw new UsageError(vllm.problems);
    const { requests, slo, ...runFlags } = vllm.flags;
    const engineProblems: string[] = [];
    const engineFlags = givenFlags(cmd, ENGINE_FLAGS, engineProblems);
    if (engineProblems.length) throw new UsageError(engineProblems);
    const resolved = resolveSweepConfig({
      flags: { ...sweepFlags, requests: typeof requests === 'number' ? String(requests) : requests, slo },
      runFlags,
      configFile: cmd.opts().config as string | undefined,
      engineFlags,
    });
    const simulated = resolved.engine !== undefined;
    const ignored = [...(resolved.engine?.ignored ?? []).map((k) => `--${toKebab(k)}`), ...(simulated && resolved.sweep.outputs.length ? ['--push'] : [])];
    if (ignored.length) out.err.write(`tokenflood sweep: --simulate: ignored (not modelled): ${ignored.join(', ')}\n`);
    for (const n of vllm.notes) out.err.write(`tokenflood sweep: vLLM flags: ${n}\n`);
    for (const n of resolved.notes) out.err.write(`tokenflood sweep: ${stripControls(n)}\n`);
    const s = resolved.sweep;
    // --reporter as in run (cli/reporters.ts), for the sweep's lines and each point's live display.
    const choice = chooseReporters(resolved.base.config.reporter, s);
    if (choice.end === 'json') s.json = true;
    const info = !choice.start ? discard() : s.json ? out.err : out.out;
    let doneCount = 0;
    let level = '';
    let warned = false;
    let inPoint = false;
    // Requests are in flight only while a point runs (after its preflight); between points there is nothing to wait for.
    const stopper = onStopSignals(out, () => `stopping the sweep: no further points${inPoint ? `; the current point sends no new requests, and those in flight get up to ${resolved.base.config.gracePeriod} s (--grace-period) to finish, then are cancelled and recorded` : ''}`);
    // On a terminal each point gets the redrawn live view; elsewhere its plain progress lines. A simulated point is
    // over in a moment of wall time: its line when done is its progress (unless a display is named with --reporter).
    const tty = choice.displays === 'auto' ? Boolean(out.err.isTTY) && !s.quiet && !simulated : choice.displays.includes('live');
    const lines = choice.displays === 'auto' ? !tty && !s.quiet && !simulated : choice.displays.includes('progress');
    let live: LiveOutputs | undefined;
    // --ui: one dashboard for every point (each point's run resets it); its stop button takes the Ctrl-C path.
    const dashboard = simulated ? undefined : await startCliDashboard(resolved.base.config, out, info, stopper.stop, 'many');
    try {
      // --eval-under-load's code loads only when it is asked for.
      const ul = resolved.base.config.evalUnderLoad && !simulated ? await import('./eval-under-load.js') : undefined;
      const underLoad = ul ? ul.underLoadPlan(resolved.base.config).plan : undefined;
      // One metrics server and one remote writer for the whole sweep; each point's figures carry its name as `point`.
      live = simulated ? undefined : await startLiveOutputsFor({ ...resolved.base.config, outputs: s.outputs }, out, true);
      // The sweep's outputs on the terminal as one reporter on its events (and each point's run events).
      const terminal: Reporter = {
        name: 'sweep terminal',
        sweepStart: (i) => {
          info.write(
            i.simulated
              ? `tokenflood sweep: --simulate: every point predicted on the ${i.baseUrl.replace(/^engine model: /, 'engine model ')}, no server\n`
              : i.embedded
                ? `tokenflood sweep: no --base-url given, started the embedded simulated server at ${i.baseUrl} for all points\n`
                : `tokenflood sweep: target ${safeTerminalText(i.baseUrl, 400)}\n`,
          );
          info.write(`${i.points === undefined ? '--auto search' : `${i.points} points`}, results in ${i.outDir}\n`);
        },
        pointStart: (p) => (level = `[${p.index + 1}${p.total ? `/${p.total}` : ''} ${p.name}] `),
        runStart: (i) => {
          inPoint = true;
          // Every point loads the same dataset: its skipped records are announced once.
          if (!warned) out.err.write(workloadWarningText(i.workload, 'tokenflood sweep: '));
          warned = true;
        },
        pointEnd: ({ row }) => {
          inPoint = false;
          if (!s.quiet) info.write(`${safeTerminalText(pointLine(row, doneCount++, s.auto ? undefined : s.points.length), 400)}\n`);
        },
        sweepEnd: ({ doc, outDir, eval: ev }) => {
          const shown = endOut(choice, out);
          if (s.json) shown.out.write(JSON.stringify(ev ? { ...doc, eval: ev } : doc, null, 2) + '\n');
          else shown.out.write(`\n${stripControls(renderSweep(doc))}\n${ev && ul ? `\n${stripControls(ul.renderLevels(ev))}\n` : ''}\nwrote ${outDir}/sweep.csv, sweep.json${ev ? ', eval.jsonl, eval.json' : ''} and report.html\n`);
          // Points that could not run: the files hold the finished ones, but the sweep did not do what was asked.
          if (doc.failure) {
            out.err.write(`tokenflood: sweep incomplete: ${safeTerminalText(doc.failure, 400)}\n`);
            setExitCode(1);
          }
        },
      };
      await runSweep(resolved, {
        signal: stopper.signal,
        underLoad,
        reporters: [terminal],
        // Progress within a level: the redrawn live view on a terminal, else the plain progress line on stderr.
        pointReporters: (name) => [
          promptCacheReporter(out.err, 'tokenflood sweep: ', `point ${name}: `),
          ...(tty ? [terminalViewReporter(out.err, level)] : lines ? [progressReporter(out.err, level)] : []),
          ...(live ? [live.reporter(name)] : []),
          ...(dashboard ? [dashboard.reporter] : []),
        ],
      });
      // Also after Ctrl-C stopped the run: its final counts are worth a scrape.
      stopper.lingering = new AbortController();
      await live?.close(stopper.lingering.signal);
      live = undefined;
    } finally {
      await live?.close(AbortSignal.abort());
      stopper.dispose();
      await endCliDashboard(dashboard, out, () => stopper.stops > 0);
    }
  });
}
