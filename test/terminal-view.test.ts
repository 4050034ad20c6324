// The live terminal view in a whole run: redrawn in place on a TTY (injected isTTY stream), plain lines otherwise, nothing with --quiet.
import { describe, it, expect } from 'vitest';
import { registerRun } from '../src/cli/run.js';
import { runCli } from './fixtures/cli-harness.js';
import { startCli } from './fixtures/live-cli.js';
import { tmpDir } from './helpers.js';

// Long enough for several redraws at 2 a second, even on a quiet machine.
const args = () => ['run', '--requests', '16', '--concurrency', '2', '--input-tokens', '32', '--output-tokens', '48', '--sim-time-scale', '2', '--out', tmpDir()];

describe('live terminal view', () => {
  it('on a TTY: a multi-line table redrawn with cursor movement, erased before the summary', { timeout: 60_000 }, async () => {
    const cli = startCli(registerRun, args(), { ttyColumns: 90 });
    expect(await cli.done, cli.err()).toBe(0);
    const err = cli.err();
    // Each redraw after the first moves the cursor up over the block (9 lines: up 8) and clears below.
    const redraws = err.split('\r\x1b[8A\x1b[0J').length - 1;
    expect(redraws, JSON.stringify(err.slice(0, 2000))).toBeGreaterThanOrEqual(1);
    expect(err).toMatch(/TTFT ms/);
    expect(err).toMatch(/TPOT ms/);
    expect(err).toMatch(/E2E ms/);
    expect(err).toMatch(/done \d+\/16 {2}ok \d+ {2}failed 0 {2}in flight \d/);
    // The old single live line is gone on a TTY.
    expect(err).not.toContain('\r\x1b[2K[');
    // The view's last write erases it, so what follows (warnings, the summary) starts on a clean screen.
    const erase = '\r\x1b[8A\x1b[0J';
    expect(err.slice(err.lastIndexOf(erase))).not.toContain('TTFT ms');
    // Between two erases is exactly one drawn view: 9 lines, none wider than the terminal (a wrapped line would break the redraw).
    for (const frame of err.split(erase).slice(1, -1)) {
      expect(frame.split('\n')).toHaveLength(9);
      for (const line of frame.split('\n')) expect(line.length).toBeLessThanOrEqual(90);
    }
    expect(cli.out()).toContain('TTFT');
  });

  it('not a TTY: the plain periodic lines of before; --quiet: no live output at all', { timeout: 60_000 }, async () => {
    const plain = await runCli(registerRun, args());
    expect(plain.code, plain.err).toBe(0);
    expect(plain.err).not.toContain('\x1b[');
    const quiet = startCli(registerRun, [...args(), '--quiet'], { ttyColumns: 90 });
    expect(await quiet.done).toBe(0);
    expect(quiet.err()).not.toContain('\x1b[');
    expect(quiet.err()).not.toContain('TTFT ms');
  });
});
