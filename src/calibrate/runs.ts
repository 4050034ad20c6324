// Read measured runs for calibration: run dirs or sweep dirs (points/*), their setup and measured mean TTFT, TPOT and throughput.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { MAX_CONFIG_BYTES, readTextFile } from '../util/read-file.js';
import { recordsOf, REQUESTS_JSONL } from '../report/results-dir.js';
import { stripControls } from '../util/terminal-text.js';
import { planFromRecords, planFromSummary, type MeasurementPlan } from './trace.js';
import { cacheWarningOf } from './cached-points.js';
import { ARTIFACTS, artifactPath, hasArtifact } from '../artifacts/registry.js';

/** Engine options a run's config may carry (simulate and embedded-sim runs do); the rest come from calibrate's flags. */
const ENGINE_KEYS = ['gpu', 'modelProfile', 'tp', 'weightDtype', 'kvDtype', 'maxNumSeqs', 'maxNumBatchedTokens', 'gpuMemoryUtilization', 'blockSize', 'prefixCaching', 'numGpuBlocksOverride', 'specMethod', 'specTokens', 'specAcceptance', 'specDraftCost', 'kvOffloadGiB', 'pcieGBps', 'pp', 'disagg', 'disaggLinkGBps', 'disaggLatencyMs',
  // The engine preset the run was simulated on and its scheduler (simulate and embedded-sim runs record them).
  'engine', 'schedulePolicy', 'newTokenRatio', 'cudaGraphMaxBatch', 'eagerLayerOverheadMs', 'kvFreeMemoryFraction', 'ep', 'epImbalance', 'dpAttention', 'fp8Scaling'] as const;

export interface CalibrationPoint {
  /** The run directory, as given (or sweepDir/points/name). */
  dir: string;
  /** Engine options of the deployment (no fitted constants). */
  engine: Record<string, unknown>;
  inputTokens: number;
  outputTokens: number;
  prefixTokens: number;
  /** Mean prompt tokens the server reported as cached (prefix-cache hits), 0 when it did not say. */
  cachedTokens: number;
  concurrency?: number;
  rate?: number;
  arrival?: 'constant' | 'poisson' | 'gamma';
  burstiness?: number;
  /** Successful requests measured. */
  requests: number;
  /** Warmup requests sent first (summary requests.warmup). */
  warmup: number;
  /** What is re-simulated: the run's requests in send order, its warmup, first-wave stagger and client gaps (trace.ts). */
  plan: MeasurementPlan;
  /** The run's client-health verdict (summary client.reasons) when the client was the bottleneck: its times include waiting inside the client. */
  clientBound?: string[];
  /** Set when a prefix cache answered the run's prompts without a cache workload (summary prompt_cache): left out of the fit (cached-points.ts). */
  cacheWarning?: string;
  /** Measured means, in the server's own time (wall time × sim_time_scale for a scaled sim server). */
  ttftMs: number;
  tpotMs: number;
  outputTokensPerSecond: number;
}

const MAX_SUMMARY_BYTES = 64 * 1024 * 1024;
const toCamel = (s: string): string => s.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

function readJson(path: string, max: number): Record<string, unknown> {
  const r = readTextFile(path, max);
  if ('problem' in r) throw new Error(r.problem);
  const v = JSON.parse(r.text) as unknown;
  if (!v || typeof v !== 'object') throw new Error('not a JSON object');
  return v as Record<string, unknown>;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const mean = (v: unknown): number | undefined => num((v as { mean?: unknown } | undefined)?.mean);

function clientBoundOf(summary: Record<string, unknown>): { clientBound?: string[] } {
  const c = summary.client as { client_bound?: unknown; reasons?: unknown } | undefined;
  if (c?.client_bound !== true) return {};
  return { clientBound: Array.isArray(c.reasons) ? c.reasons.filter((r): r is string => typeof r === 'string').map((r) => stripControls(r).replace(/\s+/g, ' ').slice(0, 300)) : [] };
}

/** One run directory → a calibration point, or a problem naming the directory. */
export function readRunDir(dir: string, problems: string[]): CalibrationPoint | undefined {
  let run: Record<string, unknown>;
  let summary: Record<string, unknown>;
  try {
    summary = readJson(artifactPath(dir, ARTIFACTS.summary), MAX_SUMMARY_BYTES);
    run = (summary.run as Record<string, unknown>) ?? readJson(artifactPath(dir, ARTIFACTS.run), MAX_CONFIG_BYTES);
  } catch (e) {
    problems.push(`${dir}: cannot read summary.json: ${(e as Error).message}`);
    return undefined;
  }
  const config = (run.config ?? {}) as Record<string, unknown>;
  const engine: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(config)) if ((ENGINE_KEYS as readonly string[]).includes(toCamel(k)) && v !== null) engine[toCamel(k)] = v;
  const scale = num(run.sim_time_scale) ?? 1;
  const ttft = mean(summary.ttft_ms);
  const tpot = mean(summary.tpot_ms);
  const ok = num((summary.requests as { ok?: unknown } | undefined)?.ok) ?? 0;
  const inTok = mean(summary.input_tokens);
  const outTok = mean(summary.output_tokens);
  const missing = [ttft === undefined && 'ttft_ms.mean', tpot === undefined && 'tpot_ms.mean', inTok === undefined && 'input_tokens.mean', outTok === undefined && 'output_tokens.mean'].filter(Boolean);
  if (ok < 1 || missing.length) {
    problems.push(`${dir}: no successful streamed requests to calibrate on${missing.length ? ` (summary.json lacks ${missing.join(', ')})` : ''}`);
    return undefined;
  }
  const concurrency = num(config.concurrency);
  const rate = num(config.rate);
  if (concurrency === undefined && rate === undefined) {
    problems.push(`${dir}: the run has neither a concurrency nor a rate (stages, replays and datasets are not calibrated on)`);
    return undefined;
  }
  const arrival = config.arrival;
  const inputTokens = Math.max(1, Math.round(inTok!));
  const outputTokens = Math.max(2, Math.round(outTok!));
  const cachedTokens = mean(summary.cached_tokens) ?? 0;
  const warmup = num((summary.requests as { warmup?: unknown } | undefined)?.warmup) ?? 0;
  let plan: MeasurementPlan | undefined;
  const file = join(dir, REQUESTS_JSONL);
  if (existsSync(file)) {
    try {
      plan = planFromRecords(recordsOf(file), { scale, concurrency, openLoop: rate !== undefined });
    } catch (e) {
      problems.push(`${file}: cannot read the request records: ${(e as Error).message}`);
      return undefined;
    }
  }
  return {
    dir,
    engine,
    inputTokens,
    outputTokens,
    prefixTokens: num(config.prefix_tokens) ?? 0,
    cachedTokens,
    concurrency,
    rate,
    arrival: arrival === 'constant' || arrival === 'poisson' || arrival === 'gamma' ? arrival : undefined,
    burstiness: num(config.burstiness),
    requests: ok,
    warmup,
    plan: plan ?? planFromSummary({ inputTokens, outputTokens, cachedTokens, warmup, requests: ok }),
    ...clientBoundOf(summary),
    ...cacheWarningOf(summary),
    ttftMs: ttft! * scale,
    tpotMs: tpot! * scale,
    outputTokensPerSecond: (num(summary.output_throughput) ?? 0) / scale,
  };
}

/** Each argument is a run dir (has summary.json) or a sweep dir (points/* are run dirs); every problem is reported at once. */
export function readCalibrationPoints(dirs: readonly string[]): CalibrationPoint[] {
  const problems: string[] = [];
  const points: CalibrationPoint[] = [];
  for (const d of dirs) {
    if (!existsSync(d) || !statSync(d).isDirectory()) {
      problems.push(`${d}: not a directory (give run directories or sweep directories)`);
      continue;
    }
    if (hasArtifact(d, ARTIFACTS.summary)) {
      const p = readRunDir(d, problems);
      if (p) points.push(p);
      continue;
    }
    const pointsDir = join(d, 'points');
    if (!existsSync(pointsDir)) {
      problems.push(`${d}: neither a run directory (summary.json) nor a sweep directory (points/)`);
      continue;
    }
    const names = readdirSync(pointsDir).filter((n) => hasArtifact(join(pointsDir, n), ARTIFACTS.summary)).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
    if (names.length === 0) problems.push(`${d}: points/ holds no finished run`);
    for (const n of names) {
      const p = readRunDir(join(pointsDir, n), problems);
      if (p) points.push(p);
    }
  }
  if (problems.length) throw new UsageError(problems);
  if (points.length === 0) throw new UsageError(['calibrate: no runs given']);
  return points;
}
