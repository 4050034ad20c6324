// calibrate's input check, before anything is read for the fit: each run once, every number it fits on finite and in range, named by file, line and field.
import { closeSync, existsSync, realpathSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { fileLines } from '../dataset/formats/lines.js';
import { openRegularFile, readTextFile } from '../util/read-file.js';
import { stripControls } from '../util/terminal-text.js';
import { ARTIFACTS, artifactPath, hasArtifact } from '../artifacts/registry.js';

/**
 * Prompt or output tokens of one request above this are not a measurement: 2,097,152 (2 Mi) is above the longest
 * context any served model offers, and re-simulating 1e9-token requests would take calibrate minutes per candidate.
 */
export const MAX_REQUEST_TOKENS = 2 ** 21;
/** Mean TTFT/TPOT above this (in ms, after sim_time_scale) is not a measurement either: about 2.8 hours. */
const MAX_MS = 1e7;
/** Problems listed per file at most (a file of garbage would otherwise list every line). */
const MAX_PER_FILE = 10;
const MAX_SUMMARY_BYTES = 64 * 1024 * 1024;
/** Longest requests.jsonl line read (as the results directory reader). */
const MAX_LINE_BYTES = 256 * 1024 * 1024;

const show = (v: unknown): string => stripControls(JSON.stringify(v) ?? String(v)).slice(0, 40);
const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** The run directories the arguments name: a run dir itself, or a sweep dir's points/* that hold a summary.json. */
function runDirsOf(arg: string): string[] {
  if (!existsSync(arg) || !statSync(arg).isDirectory()) return [];
  if (hasArtifact(arg, ARTIFACTS.summary)) return [arg];
  const points = join(arg, 'points');
  if (!existsSync(points) || !statSync(points).isDirectory()) return [];
  return readdirSync(points).filter((n) => hasArtifact(join(points, n), ARTIFACTS.summary)).map((n) => join(points, n));
}

/** summary.json's numbers that the fit uses: each finite and in range. */
function checkSummary(file: string, problems: string[]): void {
  const r = readTextFile(file, MAX_SUMMARY_BYTES);
  if ('problem' in r) return void problems.push(`${file}: ${r.problem}`);
  let s: unknown;
  try {
    s = JSON.parse(r.text);
  } catch (e) {
    return void problems.push(`${file}: not JSON (${(e as Error).message.slice(0, 80)})`);
  }
  if (!isObj(s)) return void problems.push(`${file}: not a JSON object`);
  const run = isObj(s.run) ? s.run : {};
  const config = isObj(run.config) ? run.config : {};
  const scale = run.sim_time_scale ?? 1;
  const at = (o: unknown, k: string): unknown => (isObj(o) ? o[k] : undefined);
  const checks: [field: string, v: unknown, ok: (x: number) => boolean, want: string][] = [
    ['run.sim_time_scale', scale, (x) => x > 0 && x <= 1e6, 'a number above 0 and at most 1e6'],
    ['ttft_ms.mean', at(s.ttft_ms, 'mean'), (x) => x >= 0 && x * (typeof scale === 'number' ? scale : 1) <= MAX_MS, `a time from 0 to ${MAX_MS} ms`],
    ['tpot_ms.mean', at(s.tpot_ms, 'mean'), (x) => x >= 0 && x * (typeof scale === 'number' ? scale : 1) <= MAX_MS, `a time from 0 to ${MAX_MS} ms`],
    ['input_tokens.mean', at(s.input_tokens, 'mean'), (x) => x >= 0 && x <= MAX_REQUEST_TOKENS, `a token count from 0 to ${MAX_REQUEST_TOKENS}`],
    ['output_tokens.mean', at(s.output_tokens, 'mean'), (x) => x >= 0 && x <= MAX_REQUEST_TOKENS, `a token count from 0 to ${MAX_REQUEST_TOKENS}`],
    ['cached_tokens.mean', at(s.cached_tokens, 'mean'), (x) => x >= 0 && x <= MAX_REQUEST_TOKENS, `a token count from 0 to ${MAX_REQUEST_TOKENS}`],
    ['output_throughput', s.output_throughput, (x) => x >= 0 && x <= 1e9, 'tokens/s from 0 to 1e9'],
    ['requests.ok', at(s.requests, 'ok'), (x) => Number.isInteger(x) && x >= 0 && x <= 1e9, 'a whole number of requests'],
    ['requests.warmup', at(s.requests, 'warmup'), (x) => Number.isInteger(x) && x >= 0 && x <= 1e9, 'a whole number of requests'],
    ['run.config.concurrency', config.concurrency, (x) => Number.isInteger(x) && x >= 1 && x <= 100_000, 'a whole number from 1 to 100000'],
    ['run.config.rate', config.rate, (x) => x > 0 && x <= 1e6, 'requests/s above 0 and at most 1e6'],
    ['run.config.prefix_tokens', config.prefix_tokens, (x) => x >= 0 && x <= MAX_REQUEST_TOKENS, `a token count from 0 to ${MAX_REQUEST_TOKENS}`],
  ];
  for (const [field, v, ok, want] of checks) {
    // Absent (or null) fields are readRunDir's to report: only a present number is checked here.
    if (v === undefined || v === null) continue;
    if (typeof v !== 'number' || !Number.isFinite(v) || !ok(v)) problems.push(`${file}: ${field}: expected ${want}, got ${show(v)}`);
  }
}

/** The record fields the fit re-simulates, each line checked; at most MAX_PER_FILE problems listed. */
function checkRecords(file: string, problems: string[]): void {
  const opened = openRegularFile(file);
  if ('problem' in opened) return void problems.push(`${file}: ${opened.problem}`);
  let listed = 0;
  let more = 0;
  const bad = (msg: string) => (listed < MAX_PER_FILE ? (problems.push(msg), listed++) : more++);
  const tokens = (x: number) => Number.isInteger(x) && x >= 0 && x <= MAX_REQUEST_TOKENS;
  const time = (x: number) => Math.abs(x) <= 1e12;
  const fields: [string, (x: number) => boolean, string][] = [
    ['input_tokens', tokens, `a whole token count from 0 to ${MAX_REQUEST_TOKENS}`],
    ['output_tokens', tokens, `a whole token count from 0 to ${MAX_REQUEST_TOKENS}`],
    ['cached_tokens', tokens, `a whole token count from 0 to ${MAX_REQUEST_TOKENS}`],
    ['id', (x) => Number.isInteger(x) && x >= 0, 'a whole number'],
    ['attempt', (x) => Number.isInteger(x) && x >= 1, 'a whole number from 1'],
    ['scheduled_at_ms', time, 'a time in ms'],
    ['sent_at_ms', time, 'a time in ms'],
    ['end_ms', (x) => x >= 0 && x <= 1e12, 'a time in ms from 0'],
    ['e2e_ms', (x) => x >= 0 && x <= 1e12, 'a time in ms from 0'],
  ];
  try {
    for (const { n, text } of fileLines(opened.fd, file, MAX_LINE_BYTES)) {
      if (!text.trim()) continue;
      let o: unknown;
      try {
        o = JSON.parse(text);
      } catch {
        continue; // unreadable lines are skipped with a warning by the record reader, as in report
      }
      if (!isObj(o)) continue;
      for (const [f, ok, want] of fields) {
        const v = o[f];
        if (v === undefined || v === null) continue;
        if (typeof v !== 'number' || !Number.isFinite(v) || !ok(v)) bad(`${file}:${n}: ${f}: expected ${want}, got ${show(v)}`);
      }
    }
  } finally {
    closeSync(opened.fd);
  }
  if (more) problems.push(`${file}: ${more} more problems like these`);
}

/**
 * Check calibrate's inputs before the fit: each run directory at most once (a sweep and one of its points, or the
 * same directory twice, would weigh that run double), and every number the fit uses finite and in range. Throws a
 * UsageError (exit 2) listing every problem; nothing is fitted or written then.
 */
export function checkCalibrationInputs(args: readonly string[]): void {
  const problems: string[] = [];
  const seen = new Map<string, string>();
  for (const arg of args)
    for (const dir of runDirsOf(arg)) {
      let real: string;
      try {
        real = realpathSync(dir);
      } catch {
        continue;
      }
      const first = seen.get(real);
      if (first !== undefined) {
        problems.push(`${dir}: the same run as ${first}, given twice (it would count double in the fit): give each run once`);
        continue;
      }
      seen.set(real, dir);
      checkSummary(artifactPath(dir, ARTIFACTS.summary), problems);
      const records = artifactPath(dir, ARTIFACTS.requests);
      if (existsSync(records)) checkRecords(records, problems);
    }
  if (problems.length) throw new UsageError(problems.map((p) => `calibrate: ${p}`));
}
