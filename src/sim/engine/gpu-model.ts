// The simulated GPUs' readings as pure formulas: SM occupancy of a step, board power, and one reading from busy time and KV use.
import type { EngineSpec } from './config.js';

const MiB = 1024 * 1024;
/** Temperature model: ambient-ish idle plus a rise proportional to utilization (°C). */
const TEMP_IDLE_C = 32;
const TEMP_RISE_C = 40;
/** An idle GPU drops to a low P-state; its SM clock reads this share of the boost clock. */
const IDLE_SM_CLOCK_SHARE = 0.35;

/** What the occupancy of a step needs: its compute and memory times (ms). */
export interface StepCostShare {
  cost: { computeMs: number; memoryMs: number };
}

/**
 * SM occupancy of a step: a memory-bound decode step keeps about half the SMs' warps resident, a compute-bound
 * prefill all of them: 0.5 + 0.5 · computeMs / max(computeMs, memoryMs).
 */
export function stepOccupancy(step: StepCostShare): number {
  const { computeMs, memoryMs } = step.cost;
  const roof = Math.max(computeMs, memoryMs);
  return roof > 0 ? 0.5 + (0.5 * computeMs) / roof : 0.5;
}

/** Board power (W) = idle + (TDP − idle) × utilization (0..1). */
export function powerW(tdpW: number, idleW: number, utilization: number): number {
  return idleW + (tdpW - idleW) * Math.min(1, Math.max(0, utilization));
}

/** One GPU's modelled figures (DCGM's units: %, 0..1, MiB, W, °C, MHz); every tensor-parallel GPU reads the same. */
export interface GpuModelReading {
  utilPct: number;
  smActive: number;
  fbUsedMib: number;
  fbFreeMib: number;
  powerW: number;
  tempC: number;
  smClockMhz: number;
  memClockMhz: number;
}

/**
 * The reading of one simulated GPU, given the share of a period its engine steps covered (`util`, 0..1), that share
 * weighted by step occupancy (`smActive`) and the KV blocks in use (`kvUsage`, 0..1). Memory = weights per GPU + KV
 * blocks in use × block size × KV bytes per token per GPU; power = idle + (TDP − idle) × util; temperature
 * 32 + 40 × util °C; SM clock the boost clock while busy, else 35% of it. Absent profile figures: TDP 300 W, idle 15%
 * of TDP, clocks 1500 MHz.
 */
export function gpuReading(spec: EngineSpec, util: number, smActive: number, kvUsage: number): GpuModelReading {
  const g = spec.gpu;
  const tdp = g.tdpW ?? 300;
  const idle = g.idleW ?? 0.15 * tdp;
  const smClock = g.smClockMhz ?? 1500;
  const usedMiB = (spec.weightBytesPerGpu + kvUsage * spec.numBlocks * spec.blockSize * spec.kvBytesPerTokenPerGpu) / MiB;
  return {
    utilPct: Math.round(util * 100),
    smActive,
    fbUsedMib: Math.round(usedMiB),
    fbFreeMib: Math.max(0, Math.round(g.memBytes / MiB - usedMiB)),
    powerW: powerW(tdp, idle, util),
    tempC: Math.round(TEMP_IDLE_C + TEMP_RISE_C * util),
    smClockMhz: Math.round(util > 0 ? smClock : smClock * IDLE_SM_CLOCK_SHARE),
    memClockMhz: g.memClockMhz ?? 1500,
  };
}

/** The labels of the simulated GPUs (one per tensor-parallel rank), as the sim server's DCGM series carry them. */
export function simGpuLabels(spec: EngineSpec): { gpu: string; uuid: string; modelName: string }[] {
  return Array.from({ length: spec.tp }, (_, i) => ({
    gpu: String(i),
    uuid: `GPU-5e1d0000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`,
    modelName: spec.gpu.name ?? spec.gpu.id,
  }));
}
