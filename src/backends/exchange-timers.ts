// The timers and abort of one request in flight (HTTP or WebSocket): --timeout, --idle-timeout, --cancel-after, the run's cancel.
/** What the run's cancel needs of a request in flight (an AbortController fits too). */
export interface Abortable {
  abort(): void;
}

/**
 * One re-armable idle timer, one whole-request timer and, for a request the client cancels on purpose
 * (--cancel-after/--cancel-rate), one cancel timer per request; `refresh()` on each chunk is O(1) and allocates
 * nothing. A timer running out notes which (`timedOut`, `stalled`, `cancelledByClient`) and aborts, so the
 * exchange's failure path can say why; the first to fire wins. The run cancels through `abort()` too (`register`).
 */
export class ExchangeTimers implements Abortable {
  /**
   * Aborted (by a timer, the exchange or the run). A flag and a direct call, not an AbortController: its signal,
   * event listener and DOMException cost about as much per request as reading ten events (issue 30).
   */
  aborted = false;
  /** Why it was aborted (an AbortError DOMException unless given). */
  reason: Error | undefined = undefined;
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
    register: ((ac: Abortable) => () => void) | undefined,
    private readonly onAbort: (reason: Error) => void,
    /** Cancel the request this many ms from now (the client's planned cancel); undefined: never. */
    cancelAfterMs?: number,
  ) {
    this.idleTimer = idleMs > 0 ? setTimeout(() => this.expire('stalled'), idleMs) : undefined;
    this.timer = timeoutMs > 0 ? setTimeout(() => this.expire('timedOut'), timeoutMs) : undefined;
    this.cancelTimer = cancelAfterMs !== undefined ? setTimeout(() => this.expire('cancelledByClient'), Math.max(0, cancelAfterMs)) : undefined;
    this.unregister = register?.(this);
  }

  /**
   * The request's last byte went out (its measured send time): the planned cancel counts from here, not from the
   * hand-over to the HTTP client (a wait for a connection would otherwise eat into it). Once: a re-send keeps it.
   */
  sent(): void {
    if (this.cancelRestarted || this.aborted) return;
    this.cancelRestarted = true;
    this.cancelTimer?.refresh();
  }

  /** Bytes arrived: the idle timer starts again. */
  refresh(): void {
    this.idleTimer?.refresh();
  }

  /** Abort once (later calls do nothing), as AbortController.abort() would: `onAbort` runs synchronously. */
  abort(reason?: Error): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason ?? new DOMException('This operation was aborted', 'AbortError');
    this.onAbort(this.reason);
  }

  /** The request is settled: no timer fires and the run no longer tracks it. */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.idleTimer) clearTimeout(this.idleTimer);
    if (this.cancelTimer) clearTimeout(this.cancelTimer);
    this.unregister?.();
  }

  private expire(which: 'stalled' | 'timedOut' | 'cancelledByClient'): void {
    if (this.aborted) return; // already ended for another reason: that one stays the outcome
    this[which] = true;
    this.abort();
  }
}
