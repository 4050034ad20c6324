// Progress display: a live line on a TTY, plain periodic lines otherwise; samples the aggregator on an interval.
import { WINDOW_MS, type LiveAggregator, type LiveSnapshot } from '../metrics/live.js';
import { fmt } from './format.js';

export function progressLine(s: LiveSnapshot, total: number | undefined): string {
  const done = total ? `${s.done}/${total}` : `${s.done}`;
  // Rates and the median describe the last WINDOW_MS (10 s); the counts are the whole run's.
  return `[${fmt(s.elapsedS, 1)}s] done ${done}  ok ${s.ok}  failed ${s.failed}  in flight ${s.inFlight}  last ${WINDOW_MS / 1000}s: ${fmt(s.requestsPerS, 1)} req/s  output ${fmt(s.outputTokS, 0)} tok/s  TTFT p50 ${fmt(s.ttftP50Ms)} ms`;
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
