#!/usr/bin/env node
// tokenflood CLI entry: argv → command → exit code (2 for bad input, 130/143 when interrupted).
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { CommanderError, type Command } from 'commander';
import { EXIT_VALIDATION, TokenfloodError } from '../errors.js';
import { takeExitCode, type Out } from './io.js';
import { stripControls } from '../util/terminal-text.js';
import { programShell, withCommands, type Register } from './program-shell.js';

/**
 * Each command's module, loaded only when argv names that command: `tokenflood run` never compiles sweep, simulate,
 * k8s or the sim server (docs/performance.md#issue-30-start-up-and-memory). Anything else (no command, --help,
 * --version, `help run`, a misspelt command) builds the whole tree, so its output is unchanged.
 */
const ONE_COMMAND: Readonly<Record<string, () => Promise<Register>>> = {
  run: async () => (await import('./run.js')).registerRun,
  report: async () => (await import('./report.js')).registerReport,
  sweep: async () => (await import('./sweep.js')).registerSweep,
  compare: async () => (await import('./compare.js')).registerCompare,
  serve: async () => (await import('./serve.js')).registerServe,
  capacity: async () => (await import('./capacity.js')).registerCapacity,
  simulate: async () => (await import('./simulate.js')).registerSimulate,
  dataset: async () => (await import('./dataset.js')).registerDataset,
  trace: async () => (await import('./trace.js')).registerTrace,
  eval: async () => (await import('./eval.js')).registerEval,
  calibrate: async () => (await import('./calibrate.js')).registerCalibrate,
  merge: async () => (await import('./merge.js')).registerMerge,
  k8s: async () => (await import('./k8s.js')).registerK8s,
};

/** The command tree argv needs: the named command alone, or every command. */
export async function programFor(argv: readonly string[], io: Out): Promise<Command> {
  const name = argv[0];
  if (name === undefined || !Object.hasOwn(ONE_COMMAND, name)) return (await import('./program.js')).buildProgram(io);
  return withCommands(programShell(io), io, [await ONE_COMMAND[name]()]);
}

/** Names with a loader of their own (the check that every command of the whole tree has one is in test/). */
export const LAZY_COMMANDS = Object.keys(ONE_COMMAND);

export async function main(argv: string[], io: Out = { out: process.stdout, err: process.stderr }): Promise<number> {
  const program = await programFor(argv, io);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return takeExitCode();
  } catch (e) {
    const pending = takeExitCode();
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return 0;
      return 2;
    }
    if (e instanceof TokenfloodError && e.code !== 'E_INTERNAL') {
      io.err.write(`tokenflood: ${stripControls(e.message)}\n`);
      // Interrupted before the run started: the signal's exit code (130/143), not "bad input".
      if (e.code === 'E_INTERRUPTED') return Math.max(pending, 130);
      // A write failure is not bad input: the run was (partly) done, so it is exit 1 like other run failures.
      // The validation ladder failed (run --validate): the server answered, but not as a benchmark needs.
      if (e.code === 'E_VALIDATION') return EXIT_VALIDATION;
      return e.code === 'E_WRITE' ? 1 : 2;
    }
    io.err.write(`tokenflood: internal error: ${stripControls((e as Error)?.stack ?? String(e))}\n`);
    return 1;
  }
}

/** Run as a program (`node …/tokenflood.js`, also through a symlink: import.meta.url is the resolved file), not imported. */
function invokedDirectly(): boolean {
  const file = process.argv[1];
  if (!file) return false;
  if (file.endsWith('/tokenflood')) return true;
  try {
    return import.meta.url === pathToFileURL(realpathSync(file)).href;
  } catch {
    return false;
  }
}
if (invokedDirectly()) {
  // Keep V8's young generation at its initial 1 MB semi-spaces: under a run's allocation rate V8 grows them to 16 MB
  // (32 MB of new space, nearly all of it resident). Peak RSS of the flood harness 120 → 96.5 MB at 100 streams and
  // 149 → 136 MB at 500, client CPU within noise (medians of 5 pairs at 500 streams: 5.41 vs 5.56 CPU-s;
  // docs/performance.md#v8s-young-generation). V8 reads this flag whenever new space would grow, so setting it here
  // works, unlike --max-semi-space-size. A user who sized the young generation (--max-/--min-semi-space-size in
  // NODE_OPTIONS or on node's command line, or this flag on node's command line) keeps their setting.
  const sized = /--(max|min)-semi-space-size|--semi-space-growth-factor/;
  if (!sized.test(process.env.NODE_OPTIONS ?? '') && !process.execArgv.some((a) => sized.test(a))) setFlagsFromString('--semi-space-growth-factor=1');
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
