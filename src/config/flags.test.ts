// The one flag system: every config key has exactly one flag, and help text never repeats a default the schema holds.
import { describe, expect, it } from 'vitest';
import { Command } from 'commander';
import { z } from 'zod';
import { addFlags, collectFlags, describedFlags, flagTable, givenFlags, type Flag } from '../util/flags.js';
import { RunConfigSchema, RUN_FLAGS } from './schema.js';
import { WorkloadSchema, WORKLOAD_FLAGS, DEFAULT_DATASET_SEED } from './workload.js';
import { EmbeddedSimSchema, EMBEDDED_SIM_FLAGS } from './embedded-sim.js';
import { SweepSchema, SWEEP_FLAGS } from '../sweep/config.js';
import { simServerOptionsSchema } from '../sim/options.js';
import { capacityInputSchema } from '../sim/capacity.js';
import { simEngineOptionsSchema } from '../simulate.js';
import { SERVE_FLAGS } from '../cli/serve.js';
import { CAPACITY_FLAGS } from '../cli/capacity.js';
import { ENGINE_FLAGS } from '../cli/simulate.js';
import { applyHelpFormat } from '../cli/help.js';

const keysOf = (shape: object, except: string[] = []) => Object.keys(shape).filter((k) => !except.includes(k)).sort();
const flagsOf = (table: object) => Object.values(table as Record<string, Flag>);

// Each table against the schema it is generated from (`points` is YAML only; `faults` has its own --faults/--fault).
const TABLES: [string, object, object, string[]][] = [
  // `outputs` is set from the KIND=URL values of --out (config/live-metrics.ts), not a flag of its own.
  ['run', RunConfigSchema.shape, RUN_FLAGS, ['outputs']],
  ['workload', WorkloadSchema.shape, WORKLOAD_FLAGS, []],
  ['embedded sim', EmbeddedSimSchema.shape, EMBEDDED_SIM_FLAGS, []],
  ['sweep', SweepSchema.shape, SWEEP_FLAGS, ['points']],
  ['serve', simServerOptionsSchema.shape, SERVE_FLAGS, ['faults']],
  ['capacity', capacityInputSchema.shape, CAPACITY_FLAGS, []],
  ['simulate engine', simEngineOptionsSchema.shape, ENGINE_FLAGS, []],
];

describe('flag tables', () => {
  for (const [name, shape, table, except] of TABLES) {
    it(`${name}: every schema key has exactly one flag and every flag a schema key`, () => {
      expect(Object.keys(table).sort()).toEqual(keysOf(shape, except));
      const names = flagsOf(table).map((f) => f.flag.split(' ')[0].replace(/^--no-/, '--'));
      // The deliberate pairs: --server-metrics <url> (serverMetricsUrl) and --no-server-metrics (serverMetrics);
      // --short-baseline <tokens> (shortBaseline) and --no-short-baseline (autoShortBaseline).
      const pairs = ['--server-metrics', '--short-baseline'];
      expect(names.filter((n, i) => names.indexOf(n) !== i && !pairs.includes(n))).toEqual([]);
    });

    it(`${name}: no help text states a default (it is taken from the schema)`, () => {
      expect(flagsOf(table).filter((f) => /\(default/.test(f.help)).map((f) => f.flag)).toEqual([]);
    });
  }

  it('the default shown is the schema default', () => {
    const stream = RUN_FLAGS.stream;
    expect(stream.flag).toBe('--no-stream');
    expect(RUN_FLAGS.timeout.shownDefault).toBe('600 s');
    expect(RUN_FLAGS.warmup.shownDefault).toBe(String(RunConfigSchema.parse({}).warmup));
    expect(RUN_FLAGS.datasetSeed.shownDefault).toBe(`${DEFAULT_DATASET_SEED}, prompts fresh per run`);
    expect(RunConfigSchema.parse({}).datasetSeed).toBeUndefined();
    expect(SWEEP_FLAGS.maxConcurrency.shownDefault).toBe(String(SweepSchema.parse({}).maxConcurrency));
    expect(EMBEDDED_SIM_FLAGS.simGpu.shownDefault).toBe(simServerOptionsSchema.parse({}).gpu);
    expect(SERVE_FLAGS.port.shownDefault).toBe('0');
  });

  it('a few enum choices are the flag term; more are listed in the help text, the term named after the flag', () => {
    expect(RUN_FLAGS.transport.flag).toBe('--transport <auto|h1|undici>');
    expect(RUN_FLAGS.corpus.flag).toBe('--corpus <en|zh>');
    expect(SERVE_FLAGS.weightDtype.flag).toBe('--weight-dtype <dtype>');
    expect(SERVE_FLAGS.weightDtype.help).toMatch(/; one of bf16, fp16, fp8, int8, int4, mxfp4, nvfp4, fp32$/);
    expect(RUN_FLAGS.backend.flag).toBe('--backend <backend>');
  });

  it('unit words stay whole in flag names', () => {
    expect(SERVE_FLAGS.kvOffloadGiB.flag).toBe('--kv-offload-gib <n>');
    expect(SERVE_FLAGS.pcieGBps.flag).toBe('--pcie-gbps <n>');
    expect(SERVE_FLAGS.disaggLinkGBps.flag).toBe('--disagg-link-gbps <n>');
  });
});

describe('flagTable / describedFlags', () => {
  const shape = z.object({
    level: z.coerce.number().int().default(3),
    mode: z.enum(['fast', 'slow']).default('fast'),
    colour: z.boolean().default(true),
    size: z.number().optional(),
  }).shape;
  const meta = { level: { help: 'how loud' }, mode: { help: 'how quick' }, colour: { help: 'plain output' }, size: { help: 'how big', defaultText: 'the screen width' } };

  it('rejects help text that states a default', () => {
    expect(() => flagTable(shape, { ...meta, level: { help: 'how loud (default 3)' } })).toThrow(/--level: the help text shows a default/);
    expect(() => describedFlags(z.object({ n: z.number().default(2).describe('count (default 2)') }).shape)).toThrow(/--n: the help text shows a default/);
  });

  it('a key without a flag, or a flag without a key, is an error (at compile time and at start-up)', () => {
    const { size: _size, ...missing } = meta;
    // @ts-expect-error: size has no flag
    expect(() => flagTable(shape, missing)).toThrow(/differ: size/);
    // @ts-expect-error: extra is not a config key
    expect(() => flagTable(shape, { ...meta, extra: { help: 'nothing' } })).toThrow(/differ: extra/);
    expect(() => describedFlags(z.object({ n: z.number() }).shape)).toThrow(/--n: no help text/);
  });

  it('help shows the schema default once, choices in the term, --no- for booleans that default on', () => {
    const cmd = new Command('x');
    addFlags(cmd, flagTable(shape, meta));
    applyHelpFormat(cmd);
    const help = cmd.helpInformation();
    expect(help).toMatch(/--level <n> +how loud \(default 3\)\n/);
    expect(help).toMatch(/--mode <fast\|slow> +how quick \(default fast\)\n/);
    expect(help).toMatch(/--no-colour +plain output\n/);
    expect(help).toMatch(/--size <n> +how big \(default the screen width\)\n/);
  });

  it('a flag may be named other than its key, and keeps the key as its value name', () => {
    const table = flagTable(shape, { ...meta, level: { help: 'how loud', name: 'volume', arg: 'dB', unit: 'dB' } });
    expect(table.level).toMatchObject({ flag: '--volume <dB>', name: '--volume', shownDefault: '3 dB' });
    const cmd = new Command('x').exitOverride();
    addFlags(cmd, table);
    cmd.parse(['--volume', '9'], { from: 'user' });
    expect(givenFlags(cmd, table)).toEqual({ level: '9' });
  });

  it('collects only flags given; numbers the schema does not coerce are converted or reported', () => {
    const table = flagTable(shape, meta);
    const cmd = new Command('x').exitOverride();
    addFlags(cmd, table);
    cmd.parse(['--size', '12', '--level', '4'], { from: 'user' });
    expect(givenFlags(cmd, table)).toEqual({ size: 12, level: '4' });
    const problems: string[] = [];
    expect(collectFlags({ size: 'big', colour: true }, table, problems)).toEqual({});
    expect(problems).toEqual(['--size: "big" is not a number']);
  });
});
