// `tokenflood calibrate`: fit the engine model's constants to measured runs and write an engine profile (table or --json).
import { dirname } from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { UsageError } from '../errors.js';
import { addFlags, collectFlags, describedFlags, issueProblems } from '../util/flags.js';
import { engineOptionsSchema } from '../sim/engine/config.js';
import { tuningShape } from '../sim/engine/tuning.js';
import { snakeKeys } from '../util/snake.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import type { Out } from './io.js';

const e = engineOptionsSchema.shape;

/** Deployment of the measured runs (override what run.json says; needed for runs of a real server). */
export const calibrateInputSchema = z.object({
  out: z.string().min(1).describe('engine profile YAML to write'),
  engine: tuningShape.engine.describe('serving engine the runs were measured on: the fit starts from its preset (data/engines/<name>.yaml: scheduler policy, step token budget, KV block size and memory fraction) and the profile names it'),
  gpu: z.string().min(1).optional().describe('GPU id or GPU profile file the runs were measured on'),
  modelProfile: z.string().min(1).optional().describe('model profile id, profile file or Hugging Face config.json of the served model'),
  tp: e.tp.optional().describe('tensor-parallel GPUs of the server'),
  weightDtype: e.weightDtype.optional().describe('weight precision of the server'),
  kvDtype: e.kvDtype.optional().describe('KV cache precision of the server'),
  maxRequests: z.number().int().min(1).max(100_000).default(200).describe('requests simulated per run and candidate (fewer = faster fit)'),
});
const OWN = { defaultText: "the runs' own (simulated runs record it), else the engine's default" };
export const CALIBRATE_FLAGS = describedFlags(calibrateInputSchema.shape, { engine: OWN, gpu: OWN, modelProfile: OWN, tp: OWN, weightDtype: OWN, kvDtype: OWN });

const pct = (v: number): string => `${v >= 0 ? '+' : ''}${(v * 100).toFixed(1)}%`;

export function registerCalibrate(program: Command, out: Out): void {
  const cmd = program
    .command('calibrate')
    .argument('<dirs...>', 'run directories and/or sweep directories (their points/*) measured on one deployment')
    .description("fit the engine model's constants (bandwidth efficiency, MFU, overheads) to measured runs and write an engine profile for --engine-profile");
  addFlags(cmd, CALIBRATE_FLAGS);
  cmd.option('--json', 'print one JSON document instead of the table').action(async (dirs: string[], values: Record<string, unknown>) => {
    const problems: string[] = [];
    const input = collectFlags(values, CALIBRATE_FLAGS, problems);
    const r = calibrateInputSchema.safeParse(input);
    if (!r.success) problems.push(...issueProblems(r.error.issues));
    if (problems.length || !r.success) throw new UsageError(problems);
    // Loaded on use: the fit pulls in the engine and the virtual clock.
    const { readCalibrationPoints } = await import('../calibrate/runs.js');
    const { calibrate } = await import('../calibrate/calibrate.js');
    const { profileDocument, profileYaml } = await import('../calibrate/profile-file.js');
    const { out: outFile, maxRequests, ...engine } = r.data;
    // Input validation first (exit 2, nothing written): each run once, every number finite and in range.
    const { checkCalibrationInputs } = await import('../calibrate/inputs.js');
    checkCalibrationInputs(dirs);
    const { withoutCachedPoints } = await import('../calibrate/cached-points.js');
    const points = withoutCachedPoints(readCalibrationPoints(dirs), (line) => out.err.write(`calibrate: ${line}\n`));
    // A run measured by a busy client has TTFTs that include waiting inside the client: say so, fit anyway.
    for (const p of points)
      if (p.clientBound) out.err.write(`note: ${p.dir}: the client was the bottleneck (${p.clientBound.join('; ') || 'client_bound'}), so its TTFT includes time inside the client; re-measure it for a better fit\n`);
    const wall0 = performance.now();
    const result = await calibrate(points, { engine: Object.fromEntries(Object.entries(engine).filter(([, v]) => v !== undefined)), maxRequests });
    try {
      writeFileAtomic(outFile, profileYaml(result));
    } catch (err) {
      throw new UsageError([`--out ${outFile}: cannot write (${(err as Error).message}); is ${dirname(outFile)} a writable directory?`]);
    }
    const wallS = (performance.now() - wall0) / 1000;
    if (values.json) {
      out.out.write(`${JSON.stringify(snakeKeys({ profile: outFile, ...profileDocument(result), constants: result.constants, defaults: result.defaults, points: result.points, evaluations: result.evaluations, warnings: result.warnings }), null, 2)}\n`);
      return;
    }
    const rows: string[][] = [['run', 'TTFT meas', 'fit', 'err', 'LOO err', 'TPOT meas', 'fit', 'err', 'LOO err']];
    for (const p of result.points)
      rows.push([
        p.dir, `${p.measured.ttftMs.toFixed(2)} ms`, `${p.fitted.ttftMs.toFixed(2)} ms`, pct(p.fitError.ttftMs), p.looError ? pct(p.looError.ttftMs) : '-',
        `${p.measured.tpotMs.toFixed(3)} ms`, `${p.fitted.tpotMs.toFixed(3)} ms`, pct(p.fitError.tpotMs), p.looError ? pct(p.looError.tpotMs) : '-',
      ]);
    const w = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
    const table = rows.map((row) => row.map((c, i) => (i === 0 ? c.padEnd(w[i]) : c.padStart(w[i]))).join('  ')).join('\n');
    const consts = Object.entries(result.constants).map(([k, v]) => `  ${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`).padEnd(20)} ${Number(v.toPrecision(4))}  (default ${result.defaults[k]})`).join('\n');
    const med = `median |error|: fit TTFT ${(result.medianFitError.ttft * 100).toFixed(1)}%, TPOT ${(result.medianFitError.tpot * 100).toFixed(1)}%` +
      (result.medianLooError ? `; leave-one-out TTFT ${(result.medianLooError.ttft * 100).toFixed(1)}%, TPOT ${(result.medianLooError.tpot * 100).toFixed(1)}%` : '; leave-one-out needs 3 or more runs');
    out.out.write(`calibrated on ${points.length} run${points.length === 1 ? '' : 's'} (${result.evaluations} candidates, ${wallS.toFixed(1)} s)\n${consts}\n\n${table}\n\n${med}\nwrote ${outFile}\n`);
    for (const w of result.warnings) out.err.write(`WARNING: ${w}\n`);
  });
}
