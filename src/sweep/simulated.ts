// `sweep --simulate`: the engine options a simulated sweep runs every point with, validated once before the first point.
import { UsageError } from '../errors.js';
import { EMBEDDED_SIM_KEYS } from '../config/embedded-sim.js';
import { engineTarget, resolveSimulate, simulatedEngine } from '../simulate.js';

export interface SweepEngine {
  /** The engine options as given (camelCase keys of SimEngineOptions); each point's simulate() takes them with its run flags. */
  flags: Record<string, unknown>;
  /** The engine as shown (sweep.json `target_url`), e.g. "engine model: llama-3.1-8b on 1x h100 (simulated)". */
  target: string;
  /** Options given that the simulation ignores (camelCase keys: run flags and the embedded server's --sim-*). */
  ignored: string[];
}

/**
 * The engine of a simulated sweep, checked on the first point's run flags as simulate would check them; engine
 * flags without --simulate are a problem. Problems are pushed, not thrown, so the sweep reports them all at once.
 */
export function resolveSweepEngine(
  simulate: boolean,
  engineFlags: Record<string, unknown>,
  firstPointFlags: Record<string, unknown>,
  sweepKeys: Record<string, unknown>,
  problems: string[],
): SweepEngine | undefined {
  const given = Object.keys(engineFlags).filter((k) => engineFlags[k] !== undefined);
  if (!simulate) {
    if (given.length) problems.push(`${given.map(flagName).join(', ')}: engine options of sweep --simulate; give --simulate, or --sim-gpu/--sim-model for the embedded server`);
    return undefined;
  }
  try {
    const r = resolveSimulate({ ...firstPointFlags, ...engineFlags });
    const ignored = [...r.ignored, ...EMBEDDED_SIM_KEYS.filter((k) => sweepKeys[k] !== undefined)];
    return { flags: engineFlags, target: engineTarget(simulatedEngine(r.engine, r.run.config)), ignored };
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    problems.push(...e.problems);
    return undefined;
  }
}

const flagName = (k: string) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
