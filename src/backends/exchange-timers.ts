// The timers and abort of one request in flight (HTTP or WebSocket): --timeout, --idle-timeout, --cancel-after, the run's cancel.
/**
 * One re-armable idle timer, one whole-request timer and, for a request the client cancels on purpose
 * (--cancel-after/--cancel-rate), one cancel timer per request; `refresh()` on each chunk is O(1) and allocates
 * nothing. A timer running out notes which (`timedOut`, `stalled`, `cancelledByClient`) and aborts `ac`, so the
 * exchange's failure path can say why; the first to fire wins. The run cancels through the same controller (`register`).
 */
export class ExchangeTimers {
  readonly ac = new AbortController();
  timedOut = false;
  stalled = false;
  /** The client's planned cancel (--cancel-after/--cancel-rate) ended it, not a failure nor the run's stop. */
  cancelledByClient = false;
  private readonly idleTimer: NodeJS.Timeout | undefined;
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly cancelTimer: NodeJS.Timeout | undefined;
  private cancelRestarted = false;
  private readonly unregister: (() => void) | undefined;

  constructor(
    timeoutMs: number,
    readonly idleMs: number,
    register: ((ac: AbortController) => () => void) | undefined,
    onAbort: (reason: Error) => void,
    /** Cancel the request this many ms from now (the client's planned cancel); undefined: never. */
    cancelAfterMs?: number,
  ) {
    this.idleTimer = idleMs > 0 ? setTimeout(() => this.expire('stalled'), idleMs) : undefined;
    this.timer = timeoutMs > 0 ? setTimeout(() => this.expire('timedOut'), timeoutMs) : undefined;
    this.cancelTimer = cancelAfterMs !== undefined ? setTimeout(() => this.expire('cancelledByClient'), Math.max(0, cancelAfterMs)) : undefined;
    this.ac.signal.addEventListener('abort', () => onAbort(this.ac.signal.reason as Error), { once: true });
    this.unregister = register?.(this.ac);
  }

  /**
   * The request's last byte went out (its measured send time): the planned cancel counts from here, not from the
   * hand-over to the HTTP client (a wait for a connection would otherwise eat into it). Once: a re-send keeps it.
   */
  sent(): void {
    if (this.cancelRestarted || this.ac.signal.aborted) return;
    this.cancelRestarted = true;
    this.cancelTimer?.refresh();
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
    if (this.cancelTimer) clearTimeout(this.cancelTimer);
    this.unregister?.();
  }

  private expire(which: 'stalled' | 'timedOut' | 'cancelledByClient'): void {
    if (this.ac.signal.aborted) return; // already ended for another reason: that one stays the outcome
    this[which] = true;
    this.ac.abort();
  }
}
