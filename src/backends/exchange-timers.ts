// The timers and abort of one request in flight (HTTP or WebSocket): --timeout, --idle-timeout, the run's cancel.
/**
 * One re-armable idle timer and one whole-request timer per request; `refresh()` on each chunk is O(1) and
 * allocates nothing. A timer running out notes which (`timedOut`, `stalled`) and aborts `ac`, so the exchange's
 * failure path can say why; the run cancels through the same controller (`register`).
 */
export class ExchangeTimers {
  readonly ac = new AbortController();
  timedOut = false;
  stalled = false;
  private readonly idleTimer: NodeJS.Timeout | undefined;
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly unregister: (() => void) | undefined;

  constructor(
    timeoutMs: number,
    readonly idleMs: number,
    register: ((ac: AbortController) => () => void) | undefined,
    onAbort: (reason: Error) => void,
  ) {
    this.idleTimer = idleMs > 0 ? setTimeout(() => this.expire('stalled'), idleMs) : undefined;
    this.timer = timeoutMs > 0 ? setTimeout(() => this.expire('timedOut'), timeoutMs) : undefined;
    this.ac.signal.addEventListener('abort', () => onAbort(this.ac.signal.reason as Error), { once: true });
    this.unregister = register?.(this.ac);
  }

  /** Bytes arrived: the idle timer starts again. */
  refresh(): void {
    this.idleTimer?.refresh();
  }

  get aborted(): boolean {
    return this.ac.signal.aborted;
  }

  /** Why it was aborted (a DOMException AbortError unless given). */
  get reason(): Error {
    return this.ac.signal.reason as Error;
  }

  abort(): void {
    this.ac.abort();
  }

  /** The request is settled: no timer fires and the run no longer tracks it. */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.unregister?.();
  }

  private expire(which: 'stalled' | 'timedOut'): void {
    this[which] = true;
    this.ac.abort();
  }
}
