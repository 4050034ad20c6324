#!/usr/bin/env node
// tokenflood CLI entry: argv → command → exit code (2 for bad input, 130/143 when interrupted).
import { Command, CommanderError } from 'commander';
import { EXIT_VALIDATION, TokenfloodError } from '../errors.js';
import { VERSION } from '../version.js';
import { registerRun } from './run.js';
import { registerReport } from './report.js';
import { registerSweep } from './sweep.js';
import { registerCompare } from './compare.js';
import { registerServe } from './serve.js';
import { registerCapacity } from './capacity.js';
import { registerSimulate } from './simulate.js';
import { registerDataset } from './dataset.js';
import { registerTrace } from './trace.js';
import { registerEval } from './eval.js';
import { registerCalibrate } from './calibrate.js';
import { registerMerge } from './merge.js';
import { registerK8s } from './k8s.js';
import { takeExitCode, type Out } from './io.js';
import { stripControls } from '../util/terminal-text.js';
import { applyHelpFormat } from './help.js';

/** The whole command tree (also used by the docs check, which wants every flag documented). */
export function buildProgram(io: Out): Command {
  const program = new Command('tokenflood')
    .description('load-test LLM inference services: TTFT, TPOT, ITL, E2E, throughput and errors')
    .version(VERSION)
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out.write(s), writeErr: (s) => io.err.write(s) })
    .showHelpAfterError('(run with --help for usage)');
  registerRun(program, io);
  registerReport(program, io);
  registerSweep(program, io);
  registerCompare(program, io);
  registerServe(program);
  registerCapacity(program, io);
  registerSimulate(program, io);
  registerDataset(program, io);
  registerTrace(program, io);
  registerEval(program, io);
  registerCalibrate(program, io);
  registerMerge(program, io);
  registerK8s(program, io);
  for (const c of program.commands) c.exitOverride().configureOutput({ writeOut: (s) => io.out.write(s), writeErr: (s) => io.err.write(s) });
  applyHelpFormat(program);
  return program;
}

export async function main(argv: string[], io: Out = { out: process.stdout, err: process.stderr }): Promise<number> {
  const program = buildProgram(io);
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

const invokedDirectly = process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (invokedDirectly || process.argv[1]?.endsWith('/tokenflood')) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
