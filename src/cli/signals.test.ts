import { afterEach, describe, expect, it, vi } from 'vitest';
import { onStopSignals } from './signals.js';
import { takeExitCode, type Out } from './io.js';

const outOf = (lines: string[]): Out => ({ out: process.stdout, err: { write: (s: string) => lines.push(s) } as unknown as NodeJS.WriteStream });

describe('onStopSignals', () => {
  afterEach(() => void takeExitCode());

  it('the first signal says what stops, sets 130/143 and aborts; a second exits at once; dispose stops listening', () => {
    const lines: string[] = [];
    const before = process.listenerCount('SIGTERM');
    const s = onStopSignals(outOf(lines), () => 'stopping: the test');
    const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    try {
      process.emit('SIGTERM', 'SIGTERM');
      expect(s.signal.aborted).toBe(true);
      expect(lines).toEqual(['\nSIGTERM: stopping: the test (press Ctrl-C again to exit now)\n']);
      expect(takeExitCode()).toBe(143);
      process.emit('SIGINT', 'SIGINT');
      expect(exit).toHaveBeenCalledWith(130);
    } finally {
      exit.mockRestore();
      s.dispose();
    }
    expect(process.listenerCount('SIGTERM')).toBe(before);
  });

  it('while lingering a signal only ends that wait; stop() takes the Ctrl-C path once', () => {
    const lines: string[] = [];
    const s = onStopSignals(outOf(lines), () => 'stopping');
    try {
      s.lingering = new AbortController();
      process.emit('SIGINT', 'SIGINT');
      expect([s.lingering.signal.aborted, s.signal.aborted, s.stops]).toEqual([true, false, 0]);
      s.lingering = undefined;
      s.stop();
      s.stop();
      expect([s.signal.aborted, s.stops, lines.length]).toEqual([true, 1, 1]);
      expect(takeExitCode()).toBe(130);
    } finally {
      s.dispose();
    }
  });
});
