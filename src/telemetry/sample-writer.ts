// server_metrics.jsonl: samples appended as lines, buffered in memory and flushed off the measuring path.
import { appendFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ServerSample } from './normalize.js';
import { forEachLine, Thinner, type LineReadOptions } from './jsonl-lines.js';

export const SERVER_METRICS_JSONL = 'server_metrics.jsonl';

/** Bytes buffered before a flush is started (one scrape of vLLM is a few KiB). */
const FLUSH_BYTES = 256 * 1024;

export class SampleWriter {
  private buf: string[] = [];
  private bytes = 0;
  private chain: Promise<void>;
  written = 0;
  failure: string | undefined;
  /** `redact` runs over each line: a server may echo a credential in a label value. */
  constructor(
    readonly path: string,
    private readonly redact: (s: string) => string = (s) => s,
  ) {
    this.chain = writeFile(path, '').catch((e: Error) => void (this.failure ??= e.message));
  }
  write(s: ServerSample): void {
    // ±Infinity (a histogram's last bound) is written as the string "+Inf", as in the exposition format.
    const line = this.redact(JSON.stringify(s, (_k, v: unknown) => (v === Infinity ? '+Inf' : v))) + '\n';
    this.buf.push(line);
    this.bytes += line.length;
    this.written++;
    if (this.bytes >= FLUSH_BYTES) this.flush();
  }
  private flush(): void {
    if (!this.buf.length) return;
    const text = this.buf.join('');
    this.buf = [];
    this.bytes = 0;
    this.chain = this.chain.then(() => (this.failure ? undefined : appendFile(this.path, text))).catch((e: Error) => void (this.failure ??= e.message));
  }
  async close(): Promise<void> {
    this.flush();
    await this.chain;
  }
}

/** Each sample of `dir`/server_metrics.jsonl in file order, streamed (never the file as one string). Unreadable lines are skipped. */
export function forEachServerSample(dir: string, fn: (s: ServerSample) => void, o?: LineReadOptions): void {
  forEachLine(
    join(dir, SERVER_METRICS_JSONL),
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
