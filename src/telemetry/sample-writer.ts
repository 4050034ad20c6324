// server_metrics.jsonl: samples appended as lines through the one JSONL appender, buffered and flushed off the measuring path.
import type { ServerSample } from './normalize.js';
import { forEachLine, Thinner, type LineReadOptions } from './jsonl-lines.js';
import { ARTIFACTS, appendArtifact, artifactPath } from '../artifacts/registry.js';
import type { LineAppender } from '../util/line-appender.js';

export const SERVER_METRICS_JSONL = ARTIFACTS.serverMetrics.file;

/** Telemetry lines are a few KiB once an interval: written at most once a second, or once this much waits. */
export const TELEMETRY_FLUSH = { flushBytes: 256 * 1024, flushMs: 1000 };

export class SampleWriter {
  private readonly out: LineAppender;
  /** Samples taken (`write` calls). */
  written = 0;
  /** `redact` runs over each line: a server may echo a credential in a label value. */
  constructor(
    dir: string,
    private readonly redact: (s: string) => string = (s) => s,
  ) {
    this.out = appendArtifact(dir, ARTIFACTS.serverMetrics, { ...TELEMETRY_FLUSH, unit: 'samples' });
  }
  get path(): string {
    return this.out.path;
  }
  /** Why a write failed (the file is cut back to its last complete line and nothing more is written), if one did. */
  get failure(): string | undefined {
    return this.out.failure?.reason;
  }
  write(s: ServerSample): void {
    // ±Infinity (a histogram's last bound) is written as the string "+Inf", as in the exposition format.
    this.out.append(this.redact(JSON.stringify(s, (_k, v: unknown) => (v === Infinity ? '+Inf' : v))) + '\n');
    this.written++;
  }
  async close(): Promise<void> {
    await this.out.flush();
    this.out.close();
  }
}

/** Each sample of `dir`/server_metrics.jsonl in file order, streamed (never the file as one string). Unreadable lines are skipped. */
export function forEachServerSample(dir: string, fn: (s: ServerSample) => void, o?: LineReadOptions): void {
  forEachLine(
    artifactPath(dir, ARTIFACTS.serverMetrics),
    (line) => {
      let s: ServerSample;
      try {
        s = JSON.parse(line, (_k, v: unknown) => (v === '+Inf' ? Infinity : v)) as ServerSample;
      } catch {
        return; // a line cut short by a crash: the others still count
      }
      if (s && typeof s.t_ms === 'number' && s.gauges && s.counters && s.histograms) fn(s);
    },
    o,
  );
}

/**
 * The samples of `dir`/server_metrics.jsonl in file order; [] when absent. Unreadable lines are skipped. With
 * `maxSamples`, an evenly spaced subset of about that many (at most twice), the last one included: for charts.
 */
export function readServerSamples(dir: string, maxSamples = Infinity): ServerSample[] {
  const t = new Thinner<ServerSample>(maxSamples);
  forEachServerSample(dir, (s) => t.add(s));
  return t.result();
}
