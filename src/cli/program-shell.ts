// The program without its commands, and how a command is attached: shared by the whole tree and by one-command start-up.
import { Command } from 'commander';
import { VERSION } from '../version.js';
import type { Out } from './io.js';
import { applyHelpFormat } from './help.js';

export type Register = (program: Command, io: Out) => void;

/** The program without commands: name, description, --version, and output through `io`. */
export function programShell(io: Out): Command {
  return new Command('tokenflood')
    .description('load-test LLM inference services: TTFT, TPOT, ITL, E2E, throughput and errors')
    .version(VERSION)
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out.write(s), writeErr: (s) => io.err.write(s) })
    .showHelpAfterError('(run with --help for usage)');
}

/** Register commands on the shell, then give each the same error handling, output and help layout. */
export function withCommands(program: Command, io: Out, registers: readonly Register[]): Command {
  for (const register of registers) register(program, io);
  for (const c of program.commands) c.exitOverride().configureOutput({ writeOut: (s) => io.out.write(s), writeErr: (s) => io.err.write(s) });
  applyHelpFormat(program);
  return program;
}
