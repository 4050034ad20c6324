// --start-at: wait on the wall clock until a given epoch time, so shards on several machines start their run clocks together.

/** Timers fire late, never (much) early: wake this long before the time and spin on setImmediate for the rest. */
const SPIN_MS = 2;

/**
 * Resolve at `unixMs` on this machine's wall clock (Date.now()), or at once when it has passed or `signal` aborts.
 * Returns how late the wait ended, in ms (≥ 0; the lateness of a past start time is its age).
 */
export function waitUntilUnixMs(unixMs: number, signal?: AbortSignal): Promise<number> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const finish = () => {
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', finish);
      resolve(Math.max(0, Date.now() - unixMs));
    };
    const tick = () => {
      timer = undefined;
      if (signal?.aborted) return finish();
      const left = unixMs - Date.now();
      if (left <= 0) return finish();
      // Long waits are re-checked at least once a minute: the wall clock may be stepped (NTP) while waiting.
      if (left > SPIN_MS) timer = setTimeout(tick, Math.min(left - SPIN_MS, 60_000));
      else setImmediate(tick);
    };
    signal?.addEventListener('abort', finish, { once: true });
    tick();
  });
}
