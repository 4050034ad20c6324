// The live terminal view as a reporter: windowed TPOT/E2E beside each snapshot, redrawn in place on a TTY.
import { WINDOW_MS } from '../../metrics/live.js';
import type { RequestRecord } from '../../metrics/record.js';
import type { Reporter } from '../events.js';
import { liveViewLines, type LiveView, type Percentiles } from './terminal-view.js';
import { liveExtraPercentiles } from './extra-percentiles.js';
import { percentile } from '../../metrics/stats.js';
import { runPercentiles } from '../../metrics/aggregator.js';

/** A few redraws a second: smooth enough to watch, cheap for the measuring thread. */
export const VIEW_EVERY_MS = 500;

/** Percentiles by linear interpolation, the one method the summary and the live line use. */
export function percentiles(values: number[], extra: readonly number[] = []): Percentiles {
  const n = values.length;
  if (n === 0) return { p50: null, p90: null, p99: null, ...(extra.length ? { extra: extra.map(() => null) } : {}) };
  const a = Float64Array.from(values).sort();
  return { p50: percentile(a, 50), p90: percentile(a, 90), p99: percentile(a, 99), ...(extra.length ? { extra: extra.map((p) => percentile(a, p)) } : {}) };
}

/** TPOT and E2E of measured ok records, kept in one bucket per snapshot tick, dropped once older than WINDOW_MS. */
export class LatencyWindow {
  private buckets: { atS: number; ttft: number[]; tpot: number[]; e2e: number[] }[] = [{ atS: 0, ttft: [], tpot: [], e2e: [] }];
  readonly errors = new Map<string, number>();
  /** The --percentiles beyond p50/p90/p99; TTFTs are kept only when there are some (the snapshot has its p50/p90/p99). */
  extra: number[] = [];

  add(r: RequestRecord): void {
    if (r.warmup) return;
    if (r.status !== 'ok') {
      if (r.status === 'cancelled') return;
      const kind = r.status === 'http_error' && r.http_status !== null ? `http_error ${r.http_status}` : r.status;
      this.errors.set(kind, (this.errors.get(kind) ?? 0) + 1);
      return;
    }
    const b = this.buckets[this.buckets.length - 1];
    if (this.extra.length && r.ttft_ms !== null) b.ttft.push(r.ttft_ms);
    if (r.tpot_ms !== null) b.tpot.push(r.tpot_ms);
    if (r.e2e_ms !== null) b.e2e.push(r.e2e_ms);
  }

  /** Close the current bucket at `elapsedS` and return the window's percentiles. */
  tick(elapsedS: number): Pick<LiveView, 'tpotMs' | 'e2eMs' | 'extraPercentiles' | 'ttftExtraMs'> {
    this.buckets = this.buckets.filter((b) => (elapsedS - b.atS) * 1000 < WINDOW_MS);
    const tpot = this.buckets.flatMap((b) => b.tpot);
    const e2e = this.buckets.flatMap((b) => b.e2e);
    const ttft = this.buckets.flatMap((b) => b.ttft);
    this.buckets.push({ atS: elapsedS, ttft: [], tpot: [], e2e: [] });
    const out = { tpotMs: percentiles(tpot, this.extra), e2eMs: percentiles(e2e, this.extra) };
    return this.extra.length ? { ...out, extraPercentiles: this.extra, ttftExtraMs: percentiles(ttft, this.extra).extra } : out;
  }

  errorList(): { kind: string; count: number }[] {
    return [...this.errors].map(([kind, count]) => ({ kind, count })).sort((a, b) => b.count - a.count || a.kind.localeCompare(b.kind));
  }
}

/** Move to the first line of a block of `n` lines the cursor ends (at its last line) and clear to the end of the screen. */
export function eraseBlock(n: number): string {
  return n === 0 ? '' : `\r${n > 1 ? `\x1b[${n - 1}A` : ''}\x1b[0J`;
}

/**
 * The view on a TTY stream, redrawn every VIEW_EVERY_MS with ANSI cursor movement and erased when the run ends
 * (before the summary is printed). For a stream that is not a TTY use progressReporter (plain periodic lines).
 */
export function terminalViewReporter(stream: NodeJS.WriteStream, label = ''): Reporter {
  const window = new LatencyWindow();
  let total: number | undefined;
  let durationS: number | undefined;
  let drawn = 0;
  return {
    name: 'terminal-view',
    snapshotEveryMs: VIEW_EVERY_MS,
    runStart: (e) => {
      total = e.total;
      window.extra = liveExtraPercentiles(runPercentiles(e.meta));
      const d = (e.meta.config as Record<string, unknown> | undefined)?.duration;
      durationS = typeof d === 'number' ? d : undefined;
    },
    record: (r) => window.add(r),
    snapshot: (s) => {
      const view: LiveView = { snapshot: s, total, durationS, ...window.tick(s.elapsedS), errors: window.errorList(), label: label.trim() || undefined };
      const lines = liveViewLines(view, stream.columns || 100);
      stream.write(eraseBlock(drawn) + lines.join('\n'));
      drawn = lines.length;
    },
    runEnd: () => {
      stream.write(eraseBlock(drawn));
      drawn = 0;
    },
  };
}
