// The engine profile `tokenflood calibrate` writes (flag names as keys) and the calibration report it carries.
import { createRequire } from 'node:module';
import type { CalibrationResult, Prediction } from './calibrate.js';

const require = createRequire(import.meta.url);
const kebab = (s: string): string => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
const round = (v: number, digits = 6): number => Number(v.toPrecision(digits));
const errs = (e: Prediction | undefined) =>
  e && { ttft: round(e.ttftMs, 4), tpot: round(e.tpotMs, 4), output_throughput: round(e.outputTokensPerSecond, 4) };

/** The profile as a plain object: deployment and fitted constants under flag names, and a `calibration` report (ignored when read). */
export function profileDocument(r: CalibrationResult): Record<string, unknown> {
  const doc: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(r.deployment)) doc[kebab(k)] = v;
  for (const [k, v] of Object.entries(r.constants)) doc[kebab(k)] = round(v);
  doc.calibration = {
    note: 'fitted by tokenflood calibrate; errors are (predicted - measured) / measured',
    median_fit_error: { ttft: round(r.medianFitError.ttft, 4), tpot: round(r.medianFitError.tpot, 4) },
    ...(r.medianLooError ? { median_leave_one_out_error: { ttft: round(r.medianLooError.ttft, 4), tpot: round(r.medianLooError.tpot, 4) } } : {}),
    ...(r.warnings.length ? { warnings: r.warnings } : {}),
    runs: r.points.map((p) => ({ dir: p.dir, fit_error: errs(p.fitError), ...(p.looError ? { leave_one_out_error: errs(p.looError) } : {}) })),
  };
  return doc;
}

export function profileYaml(r: CalibrationResult): string {
  const yaml = require('yaml') as typeof import('yaml');
  return `# tokenflood engine profile: use with --engine-profile (simulate, serve, capacity); flags given override it\n${yaml.stringify(profileDocument(r))}`;
}
