// The whole command tree, every command registered (for --help, unknown commands, and the docs and help checks).
import type { Command } from 'commander';
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
import type { Out } from './io.js';
import { programShell, withCommands, type Register } from './program-shell.js';

/** Every command, in the order `tokenflood --help` lists them. */
export const ALL_COMMANDS: readonly Register[] = [
  registerRun, registerReport, registerSweep, registerCompare, registerServe, registerCapacity, registerSimulate,
  registerDataset, registerTrace, registerEval, registerCalibrate, registerMerge, registerK8s,
];

/** The whole command tree (also used by the docs check, which wants every flag documented). */
export function buildProgram(io: Out): Command {
  return withCommands(programShell(io), io, ALL_COMMANDS);
}
