// A virtual clock for discrete-event runs: time jumps to the next event once everything waiting on the present has run.
import type { DriverClock } from './driver.js';
import { MinHeap } from '../util/min-heap.js';

/** Samples the state between two events (see VirtualClock.onAdvance). */
export type AdvanceListener = (from: number, to: number) => Promise<void> | undefined;

interface Timer {
  at: number;
  seq: number;
  /** Returns false when it woke nobody (resolved no promise), so no settling pass is needed before the next event. */
  fire: () => boolean;
}

/** After this much wall time with no event due and `main` still pending, the run is stuck on something outside the clock. */
const STALL_MS = 30_000;

/**
 * Events fire in time order (equal times in the order they were set). Before each event, one setImmediate lets every
 * promise chain woken by the previous event run to its next wait: Node empties the microtask queue, nested ones
 * included, before it reaches the check phase. Code on this clock must therefore wait only on this clock or on
 * promises, never on real timers or I/O.
 */
export class VirtualClock implements DriverClock {
  private t = 0;
  private seq = 0;
  private heap = new MinHeap<Timer>(before);

  now = (): number => this.t;

  private advances: AdvanceListener[] = [];

  /**
   * `fn` is called before time moves from `from` to `to` (a later event): a timeline source samples the state that
   * held in between. Promises returned are awaited (they must settle on promises only) before the clock moves on.
   * Returns a function that removes `fn`.
   */
  onAdvance(fn: AdvanceListener): () => void {
    this.advances.push(fn);
    return () => {
      this.advances = this.advances.filter((f) => f !== fn);
    };
  }

  private advance(from: number, to: number): Promise<unknown> | undefined {
    let waits: Promise<void>[] | undefined;
    for (const f of this.advances) {
      const p = f(from, to);
      if (p) (waits ??= []).push(p);
    }
    return waits && (waits.length === 1 ? waits[0] : Promise.all(waits));
  }

  /** Call `fire` at `atMs` (not before now); returns a function that cancels it. */
  at(atMs: number, fire: () => boolean): () => void {
    const timer: Timer = { at: Math.max(atMs, this.t), seq: this.seq++, fire };
    this.heap.push(timer);
    return () => {
      timer.fire = () => false;
    };
  }

  sleepUntil = (atMs: number, signal?: AbortSignal): Promise<void> =>
    new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const onAbort = () => {
        cancel();
        resolve();
      };
      const cancel = this.at(atMs, () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
        return true;
      });
      signal?.addEventListener('abort', onAbort, { once: true });
    });

  /** Takes no virtual time: other work due now runs first. */
  yield = (): Promise<void> => this.sleepUntil(this.t);

  /** Run `main`, firing events in time order until it settles. */
  async drive<T>(main: () => Promise<T>): Promise<T> {
    let settled = false;
    const p = main().finally(() => (settled = true));
    p.catch(() => {}); // observed below
    let idleSince: number | undefined;
    let woke = true;
    while (!settled) {
      if (woke) await new Promise((r) => setImmediate(r));
      if (settled) break;
      const next = this.heap.pop();
      if (!next) {
        // Nothing due on the clock, yet main waits: something outside it (a file, a thread) has to answer first.
        idleSince ??= performance.now();
        if (performance.now() - idleSince > STALL_MS) throw new Error('virtual clock: the run waits on something that never happens (no event due)');
        await new Promise((r) => setTimeout(r, 1));
        woke = true;
        continue;
      }
      idleSince = undefined;
      const sampled = next.at > this.t && this.advances.length ? this.advance(this.t, next.at) : undefined;
      if (sampled) {
        // The event goes back (same order): whatever the wait woke is due before it.
        this.heap.push(next);
        await sampled;
        woke = true;
        continue;
      }
      this.t = next.at;
      woke = next.fire();
    }
    return p;
  }
}

const before = (a: Timer, b: Timer): boolean => a.at < b.at || (a.at === b.at && a.seq < b.seq);
