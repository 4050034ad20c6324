// The engine constants `tokenflood calibrate` fits: option name, bounds and whether to search in log space.

export interface CalibratedParam {
  /** Engine option (src/sim/engine/config.ts) the value goes to; its kebab-case form is the profile key. */
  option: 'bwEfficiency' | 'mfu' | 'stepOverheadMs' | 'requestOverheadMs' | 'layerOverheadMs' | 'apiServerMs';
  min: number;
  max: number;
  /** Search log(value): right for constants spanning decades (overheads) and ratios alike. */
  log: boolean;
  /** What the constant mostly moves, for the report. */
  drives: string;
}

/** Add options here as the engine grows (the physics constants in particular); calibrate fits every entry. */
export const CALIBRATED_PARAMS: readonly CalibratedParam[] = [
  { option: 'bwEfficiency', min: 0.1, max: 1, log: true, drives: 'TPOT (memory-bound decode)' },
  { option: 'mfu', min: 0.05, max: 1, log: true, drives: 'TTFT (compute-bound prefill)' },
  { option: 'stepOverheadMs', min: 0.001, max: 50, log: true, drives: 'TPOT and TTFT at every batch size' },
  { option: 'requestOverheadMs', min: 0.0001, max: 5, log: true, drives: 'TPOT growth with batch size' },
  { option: 'apiServerMs', min: 0.01, max: 500, log: true, drives: 'TTFT at every load (API server, IPC: time outside the engine)' },
];

export const CALIBRATED_OPTIONS = CALIBRATED_PARAMS.map((p) => p.option);
