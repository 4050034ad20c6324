// Live metrics for external tools (--metrics-port, --metrics-host, --metrics-linger, --push prometheus-rw=URL, --out-interval): schema, flags, checks.
import { z } from 'zod';
import { flagTable, type FlagMetaTable } from '../util/flags.js';
import { parseDurationS } from '../util/parse.js';
import { redactUrl } from '../util/url.js';
import { unknownKind } from '../util/kinds.js';

const seconds = (min: number, max: number, msg: string) =>
  z.preprocess((v) => (v === undefined ? undefined : parseDurationS(v)), z.number({ message: 'expected a duration such as 5s, 500ms or a number of seconds' }).min(min, msg).max(max, 'expected at most 1h'));

export const LiveMetricsSchema = z.object({
  metricsPort: z.coerce.number({ message: 'expected a port number' }).int('expected a whole port number').min(0, 'expected a port from 0 to 65535').max(65535, 'expected a port from 0 to 65535').optional(),
  metricsHost: z.string().min(1).default('127.0.0.1'),
  metricsLinger: seconds(0, 3600, 'expected 0 or more').default(0),
  outInterval: seconds(0.5, 3600, 'expected at least 500ms').default(5),
  // Read into `outputs` by the resolvers (splitOutputs), so never left in a config: its URLs may carry credentials.
  push: z.union([z.string(), z.array(z.string())]).optional(),
});

export const LIVE_METRICS_META = {
  metricsPort: { arg: 'port', help: "serve the run's live figures on http://HOST:PORT/metrics in Prometheus text format; 0 = a free port, printed (docs/live-metrics.md)" },
  metricsHost: { arg: 'host', help: 'address --metrics-port binds to; anything but loopback is reachable from other machines and warns' },
  metricsLinger: { arg: 'time', help: 'with --metrics-port: keep answering scrapes this long after the run ended (final counts; tokenflood_run_finished is then 1), e.g. 30s', unit: 's' },
  outInterval: { arg: 'time', help: 'with --push prometheus-rw=URL: time between two pushes (one more is sent when the run ends)', unit: 's' },
  push: { arg: 'kind=url', help: "push live figures to a remote output while running, e.g. prometheus-rw=http://host:9090/api/v1/write (Prometheus remote write); repeatable (docs/live-metrics.md)", repeatable: true },
} satisfies FlagMetaTable<typeof LiveMetricsSchema.shape>;

export const LIVE_METRICS_FLAGS = flagTable(LiveMetricsSchema.shape, LIVE_METRICS_META);

/** Remote outputs `--push` takes, as KIND=URL (k6's `--out` form; `--out KIND=URL` is still read, with a deprecation line). */
export const OUTPUT_KINDS = ['prometheus-rw'] as const;
export type OutputKind = (typeof OUTPUT_KINDS)[number];
export interface OutputSpec {
  kind: OutputKind;
  url: string;
}

const KIND_PREFIX = /^([a-z][a-z0-9-]*)=(.*)$/s;

/**
 * True for an `--out` value of the form KIND=URL: a known kind, or any kind followed by a URL (`influxdb=http://…`,
 * then refused with the valid kinds). Anything else is the results directory.
 */
export function isOutputSpec(v: string): boolean {
  const m = KIND_PREFIX.exec(v);
  return m !== null && ((OUTPUT_KINDS as readonly string[]).includes(m[1]) || /^[a-z][a-z0-9+.-]*:\/\//i.test(m[2]));
}

/** Parse KIND=URL; a problem names the flag (`--push`, `--out`) and what was wrong (the URL is shown without user info). */
export function parseOutputSpec(v: string, flag = '--out'): OutputSpec | string {
  const m = KIND_PREFIX.exec(v);
  if (!m) return `${flag}: expected KIND=URL, e.g. prometheus-rw=http://host:9090/api/v1/write (valid kinds: ${OUTPUT_KINDS.join(', ')})`;
  if (!(OUTPUT_KINDS as readonly string[]).includes(m[1])) return `${flag}: ${unknownKind(m[1], OUTPUT_KINDS)}`;
  let u: URL;
  try {
    u = new URL(m[2]);
  } catch {
    return `${flag}: ${m[1]}=: expected an http:// or https:// URL`;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return `${flag}: ${m[1]}=: expected an http:// or https:// URL, not ${u.protocol}`;
  return { kind: m[1] as OutputKind, url: m[2] };
}

/** The line printed once when `--out` was given a KIND=URL output. */
export const OUT_KIND_DEPRECATED = '--out prometheus-rw=URL is deprecated: use --push prometheus-rw=URL';

/**
 * The remote outputs and the results directory of a run or sweep: `--push` values (each KIND=URL), and the old
 * spelling, `--out KIND=URL`, still read (then `notes` holds the deprecation line); at most one results directory.
 */
export function splitOutputs(out: unknown, push: unknown): { dir: unknown; outputs: OutputSpec[]; problems: string[]; notes: string[] } {
  const old = splitOut(out);
  const problems = [...old.problems];
  const outputs: OutputSpec[] = [];
  for (const v of push === undefined ? [] : Array.isArray(push) ? push.map(String) : [String(push)]) {
    const p = parseOutputSpec(v, '--push');
    if (typeof p === 'string') problems.push(p);
    else outputs.push(p);
  }
  return { dir: old.dir, outputs: [...outputs, ...old.outputs], problems, notes: old.outputs.length ? [OUT_KIND_DEPRECATED] : [] };
}

/**
 * `--out` given several times (or a list in a config file): at most one results directory, the rest outputs.
 * Returns the directory (or undefined), the outputs, and problems.
 */
export function splitOut(out: unknown): { dir: unknown; outputs: OutputSpec[]; problems: string[] } {
  if (!Array.isArray(out)) {
    if (typeof out === 'string' && isOutputSpec(out)) return splitOut([out]);
    return { dir: out, outputs: [], problems: [] };
  }
  const values = out.map(String);
  const dirs = values.filter((v) => !isOutputSpec(v));
  const outputs: OutputSpec[] = [];
  const problems: string[] = [];
  for (const v of values.filter(isOutputSpec)) {
    const p = parseOutputSpec(v);
    if (typeof p === 'string') problems.push(p);
    else outputs.push(p);
  }
  if (dirs.length > 1) problems.push(`--out: ${dirs.length} results directories given (${dirs.join(', ')}); give one, and outputs as --push ${OUTPUT_KINDS.join('|')}=URL`);
  return { dir: dirs[0], outputs, problems };
}

/** Problems of the live-metrics flags given together with the rest. */
export function liveMetricsProblems(c: { metricsPort?: number }, given: Record<string, unknown>): string[] {
  const p: string[] = [];
  if (c.metricsPort === undefined && given.metricsHost !== undefined) p.push('--metrics-host: needs --metrics-port');
  if (c.metricsPort === undefined && given.metricsLinger !== undefined) p.push('--metrics-linger: needs --metrics-port');
  return p;
}

/** True when `host` binds loopback only (no warning needed). */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** An output URL as it may be printed or written: user info dropped, credential query values as `***`. */
export function shownOutputUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return redactUrl(u.toString());
  } catch {
    return '(invalid URL)';
  }
}

/** True when the run asked for live outputs (their module, and prom-client, are loaded only then). */
export function wantsLiveOutputs(c: { metricsPort?: number; outputs: readonly OutputSpec[] }): boolean {
  return c.metricsPort !== undefined || c.outputs.length > 0;
}
