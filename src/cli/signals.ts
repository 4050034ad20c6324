// Ctrl-C and SIGTERM for a command that runs load: the first stops it gracefully, a second exits at once (130/143).
import { setExitCode, type Out } from './io.js';

export interface SignalStop {
  /** Aborted by the first SIGINT/SIGTERM (or stop()): the command stops sending and winds down. */
  readonly signal: AbortSignal;
  /** How many stops were asked for so far. */
  readonly stops: number;
  /** While set (--metrics-linger keeps the final figures served), a signal only aborts this wait. */
  lingering: AbortController | undefined;
  /** Take the Ctrl-C path from elsewhere (the --ui dashboard's stop button); only before any other stop. */
  stop(): void;
  /** Stop listening for signals (in a finally). */
  dispose(): void;
}

/** The exit code of a command ended by `sig`: 128 + the signal's number, as shells report it. */
export const signalExitCode = (sig: NodeJS.Signals): number => (sig === 'SIGINT' ? 130 : 143);

/**
 * Listen for SIGINT and SIGTERM. The first prints "\n<SIG>: <what(sig)> (press Ctrl-C again to exit now)" on
 * stderr, sets the exit code and aborts `signal`; a second exits the process at once.
 */
export function onStopSignals(out: Out, what: () => string): SignalStop {
  const ac = new AbortController();
  const s: SignalStop = {
    signal: ac.signal,
    stops: 0,
    lingering: undefined,
    stop: () => void (s.stops === 0 && onSignal('SIGINT')),
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
  const onSignal = (sig: NodeJS.Signals): void => {
    if (s.lingering) return s.lingering.abort();
    (s as { stops: number }).stops++;
    if (s.stops > 1) process.exit(signalExitCode(sig));
    out.err.write(`\n${sig}: ${what()} (press Ctrl-C again to exit now)\n`);
    setExitCode(signalExitCode(sig));
    ac.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return s;
}
