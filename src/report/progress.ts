// Progress display: a live line on a TTY, plain periodic lines otherwise; samples the aggregator on an interval.
import { WINDOW_MS, type LiveAggregator, type LiveSnapshot } from '../metrics/live.js';
import { fmt } from './format.js';
import type { Reporter } from './events.js';

export function progressLine(s: LiveSnapshot, total: number | undefined): string {
  const done = total ? `${s.done}/${total}` : `${s.done}`;
  // Rates and the median describe the last WINDOW_MS (10 s); the counts are the whole run's.
  // TTFT is noted at each first token: none yet with requests in flight means the server has not answered one yet.
  const ttft = s.ttftP50Ms !== null ? `${fmt(s.ttftP50Ms)} ms` : s.inFlight > 0 ? 'waiting for first token' : '-';
  return `[${fmt(s.elapsedS, 1)}s] done ${done}  ok ${s.ok}  failed ${s.failed}  in flight ${s.inFlight}  last ${WINDOW_MS / 1000}s: ${fmt(s.requestsPerS, 1)} req/s  output ${fmt(s.outputTokS, 0)} tok/s  TTFT p50 ${ttft}`;
}

/** Sample `agg` every 250 ms on a TTY (one live line), every 5 s otherwise; `label` prefixes each line (a sweep's point). */
export function startProgress(agg: LiveAggregator, total: number | undefined, stream: NodeJS.WriteStream, label = ''): () => void {
  const tty = Boolean(stream.isTTY);
  const every = tty ? 250 : 5000;
  const timer = setInterval(() => {
    const line = `${label}${progressLine(agg.snapshot(), total)}`;
    stream.write(tty ? `\r\x1b[2K${line}` : `${line}\n`);
  }, every);
  timer.unref();
  return () => {
    clearInterval(timer);
    if (tty) stream.write('\r\x1b[2K');
  };
}

/**
 * The live line as a reporter on the run's snapshot events: every 250 ms on a TTY, every 5 s otherwise; the line
 * is cleared when the run ends, before the summary is printed.
 */
export function progressReporter(stream: NodeJS.WriteStream, label = ''): Reporter {
  const tty = Boolean(stream.isTTY);
  let total: number | undefined;
  let shown = false;
  return {
    name: 'progress',
    snapshotEveryMs: tty ? 250 : 5000,
    runStart: (e) => {
      total = e.total;
    },
    snapshot: (s) => {
      const line = `${label}${progressLine(s, total)}`;
      stream.write(tty ? `\r\x1b[2K${line}` : `${line}\n`);
      shown = true;
    },
    runEnd: () => {
      if (tty && shown) stream.write('\r\x1b[2K');
    },
  };
}
