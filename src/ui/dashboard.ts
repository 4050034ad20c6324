// The live dashboard as a reporter: records and snapshots feed its statistics, each snapshot is pushed to the page.
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { Reporter, RunStartEvent } from '../report/events.js';
import type { LoadControl } from '../scheduler/load-control.js';
import { describeLoadStage } from '../scheduler/load-control.js';
import { safeTerminalText } from '../report/format.js';
import { DashboardStats, foldTelemetry, statsCsv } from './live-stats.js';
import { liveExtraPercentiles } from '../report/live/extra-percentiles.js';
import { runPercentiles } from '../metrics/aggregator.js';
import { chartOptions } from './page.js';
import { startDashboardServer, type DashboardServer } from './server.js';
import { createToken } from './token.js';
import { ARTIFACTS } from '../artifacts/registry.js';

/** Once a second: the floor, and each tick costs the measuring thread (statistics, windowed percentiles, JSON). */
export const DASHBOARD_SNAPSHOT_MS = 1000;

export const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '::1'];

export interface DashboardOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** Stop the run (or sweep) as Ctrl-C does; the CLI passes its signal handler. */
  onStop: () => void;
  /** 'many' for a sweep: a run's end is not the last one (the sweep calls `finish`). Default 'one'. */
  runs?: 'one' | 'many';
}

export interface Dashboard {
  readonly url: string;
  readonly server: DashboardServer;
  /** Pass to run() (with `liveLoad: true` to allow load changes); one reporter serves every run of a sweep. */
  readonly reporter: Reporter;
  /** No further run will come (a sweep's end): the page stops listening. */
  finish(): void;
  close(): Promise<void>;
}

interface RunView {
  start: RunStartEvent;
  t0: number;
  stats: DashboardStats;
  control: LoadControl | undefined;
  ended: Record<string, unknown> | undefined;
}

/** The header's final figures, from the summary: the same counts as the statistics table's Aggregated row. */
function finalTotals(s: { requests: { total: number; cancelled: number; failed: number } }, elapsedS: number): Record<string, number> {
  return { done: s.requests.total - s.requests.cancelled, failed: s.requests.failed, in_flight: 0, elapsed_s: elapsedS };
}

/** The download links the page shows; summary.json and report.html only once the run wrote them. */
function files(ended: boolean, written: readonly string[]): { label: string; path: string; download: boolean }[] {
  const out = [
    { label: 'requests.jsonl (records so far)', path: '/download/requests.jsonl', download: true },
    { label: 'statistics table (stats.csv)', path: '/download/stats.csv', download: true },
  ];
  const { summary, run, report } = ARTIFACTS;
  if (ended && written.includes(summary.file)) out.push({ label: summary.file, path: `/download/${summary.file}`, download: true });
  if (ended && written.includes(run.file)) out.push({ label: run.file, path: `/download/${run.file}`, download: true });
  if (ended && written.includes(report.file)) out.push({ label: `${report.file} (the run report)`, path: `/download/${report.file}`, download: false });
  return out;
}

export async function startDashboard(o: DashboardOptions): Promise<Dashboard> {
  const token = createToken();
  let view: RunView | undefined;
  let finalEnd = o.runs !== 'many';
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const now = () => (view ? performance.now() - view.t0 : 0);

  const stagesOf = (v: RunView) => v.control?.stages.map(describeLoadStage) ?? [];
  const init = () => {
    if (!view) return { title: 'waiting for the run to start', config: {}, charts: chartOptions(), knob: null, current: null, stages: [], files: [] };
    const s = view.start;
    const meta = s.meta;
    return {
      title: `${safeTerminalText(s.model, 200)} at ${safeTerminalText(s.baseUrl, 400)}${s.embedded ? ' (embedded simulated server)' : ''}`,
      // run.json's config is the redacted one (no API key, secret headers shown as ***).
      config: { target: s.baseUrl, model: s.model, executor: meta.executor, workload: s.workload, out_dir: s.outDir, config: meta.config },
      charts: chartOptions(view.stats.extra),
      knob: view.control?.knob ?? null,
      current: view.control ? describeLoadStage(view.control.current) : null,
      stages: stagesOf(view),
      files: files(view.ended !== undefined, (view.ended?.written as string[]) ?? []),
      // A page opened late (or reconnecting) shows the tables at once, and the end if it came.
      rows: view.stats.rows(),
      failures: view.stats.failureRows(),
      ended: view.ended?.stopped_reason ?? null,
      totals: view.ended?.totals ?? null,
    };
  };
  const server = await startDashboardServer({
    host: o.host ?? '127.0.0.1',
    port: o.port ?? 0,
    token,
    backend: {
      init,
      statsCsv: () => statsCsv(view?.stats.rows() ?? []),
      outDir: () => view?.start.outDir,
      stop: o.onStop,
      load: (body) => {
        const ctl = view?.control;
        if (!ctl) return { status: 409, body: { error: 'this run does not take live load changes (ramps, replay or sweep points follow their plan)' } };
        const change = { concurrency: body.concurrency as number | undefined, rate: body.rate as number | undefined };
        const problems = ctl.check(change);
        if (problems.length) return { status: 400, body: { error: problems.join('; ') } };
        const stage = describeLoadStage(ctl.set(change));
        if (view) view.stats.stage = stage.stage as number;
        server.broadcast('stages', stagesOf(view!));
        return { status: 200, body: stage };
      },
    },
  });

  const reporter: Reporter = {
    name: 'dashboard',
    snapshotEveryMs: DASHBOARD_SNAPSHOT_MS,
    runStart: (e) => {
      const t0 = performance.now();
      view = { start: e, t0, stats: new DashboardStats(() => performance.now() - t0, liveExtraPercentiles(runPercentiles(e.meta))), control: e.control, ended: undefined };
      view.stats.stage = e.control ? e.control.current.stage : null;
      server.broadcast('init', init());
    },
    record: (r) => view?.stats.record(r),
    sample: (x) => view && foldTelemetry(view.stats.telemetry, x.source, x.line),
    snapshot: (s) => {
      if (!view || !server.clients) return;
      const delay = loop.count ? loop.percentile(99) / 1e6 : null;
      loop.reset();
      server.broadcast('tick', { point: view.stats.point(s, delay), rows: view.stats.rows(), failures: view.stats.failureRows(), stages: stagesOf(view) });
    },
    runEnd: (e) => {
      if (!view) return;
      view.ended = { written: [...e.files.written], stopped_reason: e.summary.run.stopped_reason ?? 'completed', totals: finalTotals(e.summary, (performance.now() - view.t0) / 1000) };
      server.broadcast('end', {
        stopped_reason: e.summary.run.stopped_reason ?? 'completed',
        // The last tick was up to a second before the end: the header shows the final counts, not that tick's.
        totals: view.ended.totals,
        rows: view.stats.rows(),
        failures: view.stats.failureRows(),
        stages: (e.meta.load_stages as unknown[]) ?? [],
        files: files(true, e.files.written),
        final: finalEnd,
      });
    },
  };
  return {
    url: server.url,
    server,
    reporter,
    finish: () => {
      finalEnd = true;
      server.broadcast('final', {});
    },
    close: async () => {
      loop.disable();
      await server.close();
    },
  };
}

/** The warning for a --ui-host that is not loopback: the page (token-protected, plain HTTP) is reachable from the network. */
export function exposedHostWarning(host: string): string | undefined {
  if (LOOPBACK_HOSTS.includes(host)) return undefined;
  return `tokenflood: WARNING: --ui-host ${host}: the dashboard listens beyond this machine over plain HTTP; anyone who sees its URL (the token) can watch and stop the run`;
}
