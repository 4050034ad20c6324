// `tokenflood serve`: start the sim server in the foreground until SIGINT/SIGTERM.
import { MAX_CONFIG_BYTES, readTextFile } from '../util/read-file.js';
import { extname } from 'node:path';
import type { Command } from 'commander';
import { parseYaml } from '../util/yaml.js';
import { UsageError } from '../errors.js';
import { addFlags, collectFlags, describedFlags, issueProblems } from '../util/flags.js';
import { FAULT_KINDS, parseFaultSpec } from '../sim/http/faults.js';
import { SIM_SERVER_FLAG_META, simServerOptionsSchema, type SimServerOptions } from '../sim/options.js';

export const SERVE_FLAGS = describedFlags(simServerOptionsSchema.shape, SIM_SERVER_FLAG_META, ['faults']);

/** `--fault kind[:rate][,key=value...]`, e.g. `http429:0.1,retryAfterSeconds=2` or `stall,every=10,ms=3000`. */
export function parseFaultFlag(spec: string, problems: string[]): [string, Record<string, number | boolean>] | undefined {
  return parseFaultSpec(spec, '--fault', problems);
}

function readFaultsFile(path: string, problems: string[]): Record<string, unknown> {
  try {
    const r = readTextFile(path, MAX_CONFIG_BYTES);
    if ('problem' in r) throw new Error(r.problem);
    const text = r.text;
    return (extname(path) === '.json' ? JSON.parse(text) : parseYaml(text)) ?? {};
  } catch (e) {
    problems.push(`--faults ${path}: ${(e as Error).message}`);
    return {};
  }
}

/** Flags → validated SimServerOptions, or UsageError listing every problem. */
export function serveOptionsFromFlags(values: Record<string, unknown>): SimServerOptions {
  const problems: string[] = [];
  const input: Record<string, unknown> = collectFlags(values, SERVE_FLAGS, problems);
  const faults: Record<string, unknown> = typeof values.faults === 'string' ? readFaultsFile(values.faults, problems) : {};
  for (const f of (values.fault as string[] | undefined) ?? []) {
    const parsed = parseFaultFlag(f, problems);
    if (parsed) faults[parsed[0]] = parsed[1];
  }
  if (Object.keys(faults).length) input.faults = faults;
  const r = simServerOptionsSchema.safeParse(input);
  if (!r.success) problems.push(...issueProblems(r.error.issues));
  else {
    if (input.router !== undefined && r.data.replicas < 2) problems.push('--router: only applies with --replicas 2 or more');
    if (input.sessionHeader !== undefined && r.data.router !== 'session') problems.push('--session-header: only applies with --router session');
    if (input.routerPrefixTokens !== undefined && r.data.router !== 'prefix-hash') problems.push('--router-prefix-tokens: only applies with --router prefix-hash');
  }
  if (problems.length) throw new UsageError(problems);
  return input as SimServerOptions;
}

export function registerServe(program: Command): void {
  const cmd = program
    .command('serve')
    .description('run the simulated vLLM-like inference server (OpenAI-compatible) until Ctrl-C');
  addFlags(cmd, SERVE_FLAGS);
  cmd
    .option('--faults <file>', 'fault injection config (JSON or YAML), see docs/sim.md')
    .option('--fault <spec>', `add a fault: kind[:rate][,key=value...]; kinds: ${Object.keys(FAULT_KINDS).join(', ')}`, (v: string, acc: string[] = []) => [...acc, v])
    .action(async (values: Record<string, unknown>) => {
      const opts = serveOptionsFromFlags(values);
      // Loaded here, not at start-up: the sim server (and prom-client) would cost every other command ~1.5 MB and 25-40 ms.
      const { startSim } = await import('../sim/replicas.js');
      const sim = await startSim(opts);
      process.stdout.write(`tokenflood sim server listening on ${sim.baseUrl} (${sim.description}${opts.engine ? `, ${opts.engine} defaults` : ''}, time scale ${sim.timeScale})\n`);
      await new Promise<void>((resolve) => {
        const stop = (): void => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          void sim.close().then(resolve);
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
    });
}
