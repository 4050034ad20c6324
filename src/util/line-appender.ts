// Appends lines to a file in batches written off the measuring thread; never half a line left behind, nothing accepted lost at exit.
import { closeSync, constants, fstatSync, ftruncateSync, openSync, statfs, statfsSync, write as fsWrite, writeSync } from 'node:fs';
import { WriteError } from '../errors.js';
import { describeFsError } from './atomic-write.js';

/** A positional write (`pwrite`): up to `length` bytes of `buf` from `offset` into the file at `position`; returns the bytes written. */
export type WriteAtFn = (fd: number, buf: Uint8Array, offset: number, length: number, position: number) => number;

/** Flush once this much waits (in UTF-16 units, close enough to bytes for a threshold)... */
export const FLUSH_BYTES = 64 * 1024;
/** ... or once the oldest waiting line is this old. */
export const FLUSH_MS = 100;
/**
 * While a background write is out, at most this many times FLUSH_BYTES wait; beyond that they are written on this
 * thread (a caller that never yields, or a disk slower than the records): memory stays bounded.
 */
export const MAX_PENDING_BATCHES = 16;
/**
 * Below this much free space each line is written as it is taken, on this thread: a disk that fills then loses
 * no line taken, and the line that does not fit is refused at once (a buffered batch would lose up to FLUSH_BYTES).
 */
export const LOW_SPACE_BYTES = 1024 * 1024;

export interface AppenderOptions {
  /** Replaces the file writes (tests make it fail part-way): called synchronously, and from a later macrotask for a background flush. */
  write?: WriteAtFn;
  flushBytes?: number;
  flushMs?: number;
  lowSpaceBytes?: number;
  /** What a line is, for the failure message ("254 complete records kept"). */
  unit?: string;
  /** Empty the file when opening it (a results directory reused with --overwrite); default: append to what is there. */
  truncate?: boolean;
}

interface Batch {
  buf: Buffer;
  /** File offset of its first byte: the end of what is already on disk, so a rewrite lands on the same bytes. */
  pos: number;
  lines: number;
  /** Written again synchronously by flushSync(); the background write's outcome no longer counts. */
  superseded: boolean;
  done: Promise<void>;
  resolve: () => void;
}

const syncWriteAt: WriteAtFn = (fd, buf, offset, length, position) => writeSync(fd, buf, offset, length, position);
const eio = (n: number, off: number, len: number) => Object.assign(new Error(`EIO: write returned ${n} after ${off} of ${len} bytes`), { code: 'EIO' });

/** Bytes of complete lines in the first `n` bytes of `buf`, and how many lines that is. */
function completeLines(buf: Buffer, n: number): { bytes: number; lines: number } {
  const bytes = n > 0 ? buf.lastIndexOf(0x0a, n - 1) + 1 : 0; // a negative offset would count from the end
  let lines = 0;
  for (let i = buf.indexOf(0x0a); i >= 0 && i < bytes; i = buf.indexOf(0x0a, i + 1)) lines++;
  return { bytes, lines };
}

// One exit hook for all open appenders: a process.exit() (second Ctrl-C) still writes every accepted line.
const open = new Set<LineAppender>();
const onExit = () => {
  for (const a of open) a.flushSync();
};

/**
 * Lines are kept in memory and written together: when FLUSH_BYTES wait, or FLUSH_MS after the first one,
 * one background write at a time. `close()` and process exit write what is left synchronously.
 * A failed write (disk full, ...) cuts the file back to its last complete line; from then on `append` returns false.
 */
export class LineAppender {
  private readonly fd: number;
  /** Bytes of complete lines known to be on disk. */
  private size: number;
  /** Lines known to be on disk in full. */
  written = 0;
  /** Lines `append` took (returned true for); `accepted - written` are waiting, or were lost when `failure` was set. */
  accepted = 0;
  failure: WriteError | undefined;
  private pending: string[] = [];
  private pendingChars = 0;
  private inflight: Batch | null = null;
  /** Background writes whose callback has not come back; the fd is closed only after the last one. */
  private outstanding = 0;
  private timer: NodeJS.Timeout | undefined;
  /** The timer fired while a write was in flight: flush as soon as it returns. */
  private due = false;
  private closed = false;
  /** Free space on the file's filesystem was below LOW_SPACE_BYTES when last looked at (after each batch). */
  private lowSpace = false;
  private readonly flushBytes: number;
  private readonly flushMs: number;
  private readonly lowSpaceBytes: number;

  constructor(
    readonly path: string,
    private readonly opts: AppenderOptions = {},
  ) {
    // Not O_APPEND: writes go to explicit offsets, so writing a batch again (flushSync) cannot duplicate it.
    this.fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | (opts.truncate ? constants.O_TRUNC : 0));
    this.size = fstatSync(this.fd).size;
    this.flushBytes = opts.flushBytes ?? FLUSH_BYTES;
    this.flushMs = opts.flushMs ?? FLUSH_MS;
    this.lowSpaceBytes = opts.lowSpaceBytes ?? LOW_SPACE_BYTES;
    try {
      const st = statfsSync(path);
      this.lowSpace = st.bavail * st.bsize < this.lowSpaceBytes;
    } catch {
      /* no free-space figure (some special files): stay buffered */
    }
    if (open.size === 0) process.on('exit', onExit);
    open.add(this);
  }

  /** Take one line (ending in '\n'). Returns false, and takes nothing more, once a write has failed or after close. */
  append(line: string): boolean {
    if (this.failure || this.closed) return false;
    this.pending.push(line);
    this.pendingChars += line.length;
    this.accepted++;
    if (this.lowSpace) {
      this.flushSync();
      if (this.failure) this.accepted--;
      return !this.failure;
    }
    if (this.pendingChars >= this.flushBytes) {
      if (this.inflight && this.pendingChars >= this.flushBytes * MAX_PENDING_BATCHES) this.flushSync();
      else this.startFlush();
    } else if (!this.timer && !this.due) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        if (this.inflight) this.due = true;
        else this.startFlush();
      }, this.flushMs);
      this.timer.unref();
    }
    return true;
  }

  /** Resolves once every line taken so far is on disk (or a write failed). */
  async flush(): Promise<void> {
    while (!this.failure && !this.closed && (this.inflight || this.pending.length)) {
      if (!this.inflight) this.startFlush();
      await this.inflight!.done;
    }
  }

  /** Write everything waiting now, on this thread, including a batch whose background write has not come back. */
  flushSync(): void {
    if (this.failure || this.closed) return;
    this.clearTimer();
    const b = this.inflight;
    if (!b && !this.pending.length) return;
    const rest = this.takePending();
    if (b) {
      b.superseded = true;
      this.inflight = null;
      b.resolve();
    }
    // Same bytes at the same offset as the background write: whichever lands last, the file is the same.
    const buf = b ? Buffer.concat([b.buf, rest.buf]) : rest.buf;
    const lines = (b?.lines ?? 0) + rest.lines;
    const write = this.opts.write ?? syncWriteAt;
    let off = 0;
    try {
      while (off < buf.length) {
        const n = write(this.fd, buf, off, buf.length - off, this.size + off);
        if (!(n > 0)) throw eio(n, off, buf.length);
        off += n;
      }
    } catch (e) {
      this.fail(buf, off, e);
      return;
    }
    this.size += buf.length;
    this.written += lines;
  }

  /** Flush what is left synchronously and close the file (once a background write still out has returned). */
  close(): void {
    if (this.closed) return;
    this.flushSync();
    this.closed = true;
    this.clearTimer();
    this.pending = [];
    open.delete(this);
    if (open.size === 0) process.off('exit', onExit);
    if (this.outstanding === 0) closeSync(this.fd);
  }

  private takePending(): { buf: Buffer; lines: number } {
    const taken = { buf: Buffer.from(this.pending.join(''), 'utf8'), lines: this.pending.length };
    this.pending = [];
    this.pendingChars = 0;
    return taken;
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.due = false;
  }

  private startFlush(): void {
    if (this.inflight || this.failure || this.closed || !this.pending.length) return;
    this.clearTimer();
    const { buf, lines } = this.takePending();
    let resolve!: () => void;
    const done = new Promise<void>((r) => (resolve = r));
    this.inflight = { buf, pos: this.size, lines, superseded: false, done, resolve };
    this.writeInBackground(this.inflight, 0);
  }

  private writeInBackground(b: Batch, off: number): void {
    const len = b.buf.length - off;
    const cb = (err: Error | null, n: number) => this.onWriteDone(b, off, err, n);
    this.outstanding++;
    const w = this.opts.write;
    if (!w) fsWrite(this.fd, b.buf, off, len, b.pos + off, cb);
    else
      setImmediate(() => {
        let n: number;
        try {
          n = w(this.fd, b.buf, off, len, b.pos + off);
        } catch (e) {
          cb(e as Error, 0);
          return;
        }
        cb(null, n);
      });
  }

  /** A background write came back. */
  private onWriteDone(b: Batch, off: number, err: Error | null, n: number): void {
    this.outstanding--;
    if (b.superseded) {
      // flushSync wrote these bytes already; if it then cut the file back, this late write may have grown it again.
      if (this.failure) this.cutBack('');
      if (this.closed && this.outstanding === 0) closeSync(this.fd);
      return;
    }
    if (err || !(n > 0)) {
      this.inflight = null;
      this.fail(b.buf, off, err ?? eio(n, off, b.buf.length));
      b.resolve();
      return;
    }
    if (off + n < b.buf.length) {
      this.writeInBackground(b, off + n);
      return;
    }
    this.inflight = null;
    this.size += b.buf.length;
    this.written += b.lines;
    b.resolve();
    this.checkSpace();
    if (this.pending.length && (this.due || this.pendingChars >= this.flushBytes)) this.startFlush();
  }

  /** Look at the free space in the background; the answer applies from the next line taken. */
  private checkSpace(): void {
    if (this.lowSpaceBytes <= 0) return;
    statfs(this.path, (err, st) => {
      if (!err) this.lowSpace = st.bavail * st.bsize < this.lowSpaceBytes;
    });
  }

  /** `buf` was being written at `size`, and `off` bytes of it made it: keep its complete lines, drop the rest and everything waiting. */
  private fail(buf: Buffer, off: number, e: unknown): void {
    const kept = completeLines(buf, off);
    this.size += kept.bytes;
    this.written += kept.lines;
    const cut = this.cutBack(`; could not cut back a partial last line`);
    this.failure = new WriteError(this.path, describeFsError(e), `${this.written} complete ${this.opts.unit ?? 'lines'} kept${cut}`);
    this.clearTimer();
    this.pending = [];
    this.pendingChars = 0;
  }

  /** Truncate the file to its complete lines; '' or `prefix (reason)` when that failed. */
  private cutBack(prefix: string): string {
    try {
      ftruncateSync(this.fd, this.size);
      return '';
    } catch (t) {
      return prefix && `${prefix} (${describeFsError(t)})`;
    }
  }
}
