// `run --runs N` on the terminal: a line per run as it ends, the cool-downs, then the aggregate table (or runs.json with --json).
import type { ResolvedRun } from '../config/load.js';
import type { Reporter } from '../run.js';
import { runRepeated } from '../runs/repeat.js';
import { renderRuns } from '../runs/terminal.js';
import { fmt, pct, safeTerminalText } from '../report/format.js';
import { stripControls } from '../util/terminal-text.js';
import { promptCacheWarning } from '../metrics/prompt-cache.js';
import { setExitCode, type Out } from './io.js';

export interface RepeatedCliContext {
  /** Where the run lines go (stdout, or stderr under --json, or nowhere under --reporter silent). */
  info: NodeJS.WritableStream;
  /** Where the aggregate goes (the end reporter's stdout). */
  shown: Out;
  out: Out;
  signal: AbortSignal;
  /** Run k's own reporters (start lines, live display, live metrics, dashboard). */
  reporters: (k: number) => Reporter[];
}

/** One run's end: a line of its headline figures; warnings as a single run gives them; --fail-on-slo and max-error-rate set exit 1. */
function runLineReporter(resolved: ResolvedRun, k: number, ctx: RepeatedCliContext): Reporter {
  const c = resolved.config;
  const tag = `run ${k}/${c.runs}`;
  return {
    name: 'run line',
    runEnd: (e) => {
      const s = e.summary;
      if (s.client?.client_bound) ctx.out.err.write(`tokenflood: WARNING: ${tag}: the client was too busy for its timings to be fully trusted (client_bound): ${s.client.reasons.join('; ')}\n`);
      const cached = promptCacheWarning(s);
      if (cached) ctx.out.err.write(`tokenflood: WARNING: ${tag}: ${safeTerminalText(cached, 600)}\n`);
      if (s.run.stopped_reason === 'max_error_rate') {
        ctx.out.err.write(`tokenflood: ${tag}: ${String(s.run.stop_message)}\n`);
        setExitCode(1);
      }
      const slo = e.artifacts.slo?.result;
      if (slo && c.failOnSlo && !slo.passed) setExitCode(1);
      const stopped = s.run.stopped_reason !== 'completed' ? `, stopped: ${String(s.run.stopped_reason)}` : '';
      ctx.info.write(
        `${tag}: ${s.requests.ok}/${s.requests.total} ok, ${fmt(s.output_throughput)} out tok/s, TTFT p50 ${fmt(s.ttft_ms.p50)} ms, TPOT mean ${fmt(s.tpot_ms.mean)} ms, errors ${pct(s.requests.error_rate)}${slo ? `, SLOs ${slo.passed ? 'met' : 'NOT met'}` : ''}${stopped} (${e.outDir})\n`,
      );
    },
  };
}

/** Run `resolved` --runs times and print the aggregate; a failed write of runs.json is thrown (main names the file). */
export async function runRepeatedCli(resolved: ResolvedRun, ctx: RepeatedCliContext): Promise<void> {
  const c = resolved.config;
  const res = await runRepeated(resolved, {
    signal: ctx.signal,
    reporters: (k) => [...ctx.reporters(k), runLineReporter(resolved, k, ctx)],
    onCooldown: (k, s) => ctx.info.write(`cool-down: ${s} s before run ${k + 1}/${c.runs}, nothing sent\n`),
  });
  if (c.json) ctx.shown.out.write(JSON.stringify(res.doc, null, 2) + '\n');
  else {
    ctx.shown.out.write(`\n${stripControls(renderRuns(res.doc))}\n`);
    const w = res.files.written;
    const dirs = res.doc.runs.map((r) => r.dir);
    if (w.length) ctx.shown.out.write(`\nwrote ${res.outDir}/${[...w, ...dirs].join(', ')}\n`);
  }
  if (res.failure) {
    ctx.out.err.write(`tokenflood: repeated run incomplete: ${safeTerminalText(res.failure, 400)}\n`);
    setExitCode(1);
  }
  if (res.files.failures.length) throw res.files.failures[0];
}
