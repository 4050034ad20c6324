// Three shard processes (the real CLI) against one sim server, merged: the single-machine plan sent exactly once, the open-loop schedule kept, summary = report.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawn } from 'node:child_process';
import { createServer as createNetServer } from 'node:net';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { startSimServer, type SimServerHandle } from '../src/sim/server.js';
import { run } from '../src/run.js';
import { readRecords, recordLine } from '../src/metrics/jsonl.js';
import type { RequestRecord } from '../src/metrics/record.js';
import { rebuildSummary } from '../src/cli/report.js';
import { main } from '../src/cli/main.js';
import { tmpDir } from './helpers.js';

const CLI = join(__dirname, '..', 'dist', 'bin', 'tokenflood.js');
const N = 3;
let server: SimServerHandle;

beforeAll(async () => {
  server = await startSimServer({ timeScale: 20 });
});
afterAll(async () => {
  await server?.close();
});

/** One CLI child process; resolves with its exit code and output. */
function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TOKENFLOOD_SHARDS: '', JOB_COMPLETION_INDEX: '', ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += String(c)));
    child.stderr.on('data', (c) => (err += String(c)));
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}

/** The CLI in this process (merge, report): exit code and output. */
async function inProcess(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const sink = (f: (s: string) => void) => ({ write: (s: string) => (f(String(s)), true) }) as unknown as NodeJS.WriteStream;
  const code = await main(argv, { out: sink((s) => (out += s)), err: sink((s) => (err += s)) });
  return { code, out, err };
}

/** A port free on 127.0.0.1 (the other loopback addresses the tests use are idle, so it is free there too). */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createNetServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

const records = (dir: string): RequestRecord[] => readRecords(join(dir, 'requests.jsonl')).records;
const runJson = (dir: string): Record<string, any> => JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
const startIn = (ms: number): string => new Date(Date.now() + ms).toISOString();

/** The single-machine run of the same flags, in this process: the plan every shard set must reproduce. */
async function singleMachine(flags: Record<string, unknown>): Promise<RequestRecord[]> {
  const out = join(tmpDir(), 'single');
  await run({ ...flags, baseUrl: server.baseUrl, out, quiet: true });
  return records(out);
}

/** Every id of the plan sent exactly once across the shards, each with the single-machine plan's request (lengths, class). */
function expectSamePlan(merged: RequestRecord[], single: RequestRecord[]): void {
  const ids = merged.map((r) => r.id).sort((a, b) => a - b);
  expect(ids).toEqual(single.map((r) => r.id).sort((a, b) => a - b));
  expect(new Set(ids).size).toBe(ids.length);
  const plan = new Map(single.map((r) => [r.id, r]));
  for (const r of merged) {
    const s = plan.get(r.id)!;
    expect({ id: r.id, input: r.expected_input_tokens, max: r.max_tokens, warmup: r.warmup }).toEqual({ id: s.id, input: s.expected_input_tokens, max: s.max_tokens, warmup: s.warmup });
  }
}

/** Run N shards as child processes with a common --start-at, then merge them; returns the directories. */
async function runShards(flags: string[], root: string): Promise<{ dirs: string[]; merged: string }> {
  const at = startIn(2500);
  const dirs = Array.from({ length: N }, (_, i) => join(root, `shard-${i}`));
  const res = await Promise.all(dirs.map((d, i) => cli(['run', '--base-url', server.baseUrl, ...flags, '--shard', `${i}/${N}`, '--start-at', at, '--out', d, '--quiet'])));
  for (const r of res) expect(r.code, r.err).toBe(0);
  const merged = join(root, 'merged');
  const m = await inProcess(['merge', ...dirs, '--out', merged]);
  expect(m.code, m.err).toBe(0);
  return { dirs, merged };
}

/** The shards' records, each moved by its clock origin onto the earliest one, concatenated: what `report` is run over. */
function concatenated(dirs: string[], into: string, mergedRun: Record<string, unknown>): void {
  const origins = dirs.map((d) => runJson(d).start_sync.clock_origin_unix_ms as number);
  const base = Math.min(...origins);
  mkdirSync(into, { recursive: true });
  const lines = dirs.flatMap((d, i) =>
    records(d).map((r) => recordLine({ ...r, scheduled_at_ms: Math.round((r.scheduled_at_ms + origins[i] - base) * 1000) / 1000, sent_at_ms: Math.round((r.sent_at_ms + origins[i] - base) * 1000) / 1000 })),
  );
  writeFileSync(join(into, 'requests.jsonl'), lines.join(''));
  writeFileSync(join(into, 'run.json'), JSON.stringify(mergedRun));
}

/** p-th percentile as the aggregator defines it, over a sorted array (linear interpolation). */
function expectSummaryOfRecords(merged: string, dirs: string[]): void {
  const summary = JSON.parse(readFileSync(join(merged, 'summary.json'), 'utf8'));
  const all = dirs.flatMap(records).filter((r) => !r.warmup);
  expect(summary.requests.total).toBe(all.length);
  expect(summary.requests.ok).toBe(all.filter((r) => r.status === 'ok').length);
  const ttfts = all.map((r) => r.ttft_ms).filter((x): x is number => x !== null);
  expect(summary.ttft_ms.count).toBe(ttfts.length);
  expect(summary.ttft_ms.min).toBe(Math.min(...ttfts));
  expect(summary.ttft_ms.max).toBe(Math.max(...ttfts));
  // The union of the shards' time spans: first send to last end over every shard, on the common clock.
  const m = runJson(merged).merged;
  const spans = dirs.flatMap((d, i) => records(d).filter((r) => !r.warmup).map((r) => ({ from: r.sent_at_ms + m.offsets_ms[i], to: r.sent_at_ms + m.offsets_ms[i] + (r.end_ms ?? 0) })));
  const spanS = (Math.max(...spans.map((s) => s.to)) - Math.min(...spans.map((s) => s.from))) / 1000;
  expect(Math.abs(summary.duration_s - spanS)).toBeLessThan(0.01);
}

describe.skipIf(!existsSync(CLI))('shards (needs `npm run build`)', () => {
  it('closed loop: three shards send the single-machine plan exactly once; the merged summary is what report computes', async () => {
    const flags = { concurrency: 6, requests: 30, warmup: 3, inputTokens: 'uniform:20,200', outputTokens: 'uniform:4,24' };
    const single = await singleMachine(flags);
    const root = tmpDir();
    const { dirs, merged } = await runShards(['--concurrency', '6', '--requests', '30', '--warmup', '3', '--input-tokens', 'uniform:20,200', '--output-tokens', 'uniform:4,24'], root);
    // Each shard: its own streams (6 over 3 shards: 2 each), indexes ≡ i mod 3, and its label on every record.
    dirs.forEach((d, i) => {
      const rs = records(d);
      expect(rs.every((r) => r.shard === `${i}/${N}` && r.id % N === i)).toBe(true);
      expect(runJson(d).shard).toEqual({ index: i, count: N, label: `${i}/${N}` });
    });
    expect(new Set(dirs.map((d) => runJson(d).plan.config_hash)).size).toBe(1);
    // --start-at: no shard's run clock started before the time they were given.
    for (const d of dirs) {
      const sync = runJson(d).start_sync;
      expect(sync.clock_origin_unix_ms).toBeGreaterThanOrEqual(Date.parse(sync.start_at));
      expect(sync.clock_skew.method).not.toBe('none');
      // Each shard opens the connections of its own 2 streams, not of the run's 6.
      const conn = runJson(d).connections;
      expect(conn.prewarmed + conn.failed).toBe(2);
    }
    const m = records(merged);
    expectSamePlan(m, single);
    expectSummaryOfRecords(merged, dirs);
    // summary.json of the merge = `tokenflood report` over the concatenated, aligned records.
    const cat = join(root, 'concatenated');
    concatenated(dirs, cat, runJson(merged));
    const rep = await inProcess(['report', cat, '--json', '--no-write']);
    expect(rep.code, rep.err).toBe(0);
    expect(JSON.parse(rep.out)).toEqual(JSON.parse(readFileSync(join(merged, 'summary.json'), 'utf8')));
    expect(rebuildSummary(merged).summary).toEqual(JSON.parse(readFileSync(join(merged, 'summary.json'), 'utf8')));
    expect(existsSync(join(merged, 'report.html'))).toBe(true);
  }, 60_000);

  it('open loop: the shards split one arrival sequence; the merged schedule is the single-machine schedule', async () => {
    const flags = { rate: 40, requests: 45, arrival: 'poisson' as const, inputTokens: 'uniform:20,100', maxTokens: 6 };
    const single = await singleMachine(flags);
    const root = tmpDir();
    const { dirs, merged } = await runShards(['--rate', '40', '--requests', '45', '--arrival', 'poisson', '--input-tokens', 'uniform:20,100', '--max-tokens', '6'], root);
    const m = records(merged);
    expectSamePlan(m, single);
    expectSummaryOfRecords(merged, dirs);
    const plan = new Map(single.map((r) => [r.id, r.scheduled_at_ms]));
    const meta = runJson(merged).merged;
    for (let i = 0; i < N; i++) {
      // One shard's arrivals are the single-machine ones moved by one constant (its start on the common clock),
      // up to the µs rounding of stored times; its sends follow within its own send lag.
      const mine = m.filter((r) => r.shard === `${i}/${N}`);
      const shift = mine.map((r) => r.scheduled_at_ms - plan.get(r.id)!);
      expect(Math.max(...shift) - Math.min(...shift)).toBeLessThan(0.01);
      // Started together (--start-at): the constant is the shard's start offset plus the executor's first step.
      expect(Math.abs(shift[0])).toBeLessThanOrEqual(meta.start_spread_ms + 500);
      for (const r of mine) expect(r.sent_at_ms - (plan.get(r.id)! + shift[0])).toBeCloseTo(r.schedule_lag_ms, 2);
    }
    const cat = join(root, 'concatenated');
    concatenated(dirs, cat, runJson(merged));
    const rep = await inProcess(['report', cat, '--json', '--no-write']);
    expect(JSON.parse(rep.out)).toEqual(JSON.parse(readFileSync(join(merged, 'summary.json'), 'utf8')));
  }, 60_000);

  it('the generated manifest\'s pods, run as local processes (the barrier, one shard 2 s late, per-shard volumes gathered), give the same run', async () => {
    const runFlags = ['--base-url', server.baseUrl, '--concurrency', '6', '--requests', '30', '--warmup', '3', '--input-tokens', 'uniform:20,200', '--output-tokens', 'uniform:4,24'];
    const gen = await inProcess(['k8s', 'manifest', '--shards', String(N), '--image', 'tokenflood:test', '--start-margin', '6s', '--', ...runFlags]);
    expect(gen.code, gen.err).toBe(0);
    const docs = parseAllDocuments(gen.out).map((d) => d.toJS());
    const config = docs.find((d) => d.kind === 'ConfigMap');
    const job = docs.find((d) => d.kind === 'Job' && d.spec.completionMode === 'Indexed');
    const mergeJob = docs.find((d) => d.kind === 'Job' && d !== job);
    expect(job.spec).toMatchObject({ completions: N, parallelism: N });
    // The pod's files: the ConfigMap mounted at /etc/tokenflood; /results is each shard pod's own emptyDir and the merge pod's claim.
    const root = tmpDir();
    const etc = join(root, 'etc');
    mkdirSync(etc);
    writeFileSync(join(etc, 'run.yaml'), config.data['run.yaml']);
    const results = join(root, 'results');
    const port = await freePort();
    // The headless Service's names, as loopback addresses: shard i is 127.0.0.(20+i).
    const peers = (a: string) => a.replace(/^http:\/\/[^:]+:\d+$/, `http://127.0.0.2{i}:${port}`);
    const local = (a: string, i?: number) => peers(a.replace('/etc/tokenflood', etc).replace(/^\/results/, i === undefined ? results : join(root, `pod-${i}`)));
    const container = job.spec.template.spec.containers[0];
    const gatherArgs = (mergeJob.spec.template.spec.initContainers[0].args as string[]).map((a) => local(a));
    const gathering = cli([...gatherArgs, '--poll', '200ms']);
    const runs = await Promise.all(
      Array.from({ length: N }, async (_, i) => {
        // As the kubelet does: JOB_COMPLETION_INDEX from the Job's annotation, plain values as given, $(VAR) expanded in args.
        const env: Record<string, string> = {};
        for (const e of container.env) env[e.name] = e.name === 'JOB_COMPLETION_INDEX' ? String(i) : e.value;
        const args = (container.args as string[]).map((a) => local(a.replace(/\$\(([A-Z_]+)\)/g, (_, k) => env[k] ?? `$(${k})`), i));
        // A slow image pull: the last shard comes 2 s late, and still starts with the others.
        if (i === N - 1) await new Promise((r) => setTimeout(r, 2000));
        // A short --linger: should the test fail, no agent waits 30 minutes for a gatherer.
        const lingerAt = args.indexOf('--linger') + 1;
        if (lingerAt > 0) args[lingerAt] = '60s';
        return cli([...args.slice(0, 2), '--listen', `127.0.0.2${i}:${port}`, ...args.slice(2)], env);
      }),
    );
    for (const r of runs) expect(r.code, r.err).toBe(0);
    const g = await gathering;
    expect(g.code, g.err).toBe(0);
    const mergeArgs = (mergeJob.spec.template.spec.containers[0].args as string[]).map((a) => local(a));
    const mr = await inProcess(mergeArgs);
    expect(mr.code, mr.err).toBe(0);
    const merged = join(results, 'merged');
    const dirs = Array.from({ length: N }, (_, i) => join(results, `shard-${i}`));
    dirs.forEach((d, i) => expect(runJson(d).shard.label).toBe(`${i}/${N}`));
    const single = await singleMachine({ concurrency: 6, requests: 30, warmup: 3, inputTokens: 'uniform:20,200', outputTokens: 'uniform:4,24' });
    expectSamePlan(records(merged), single);
    expectSummaryOfRecords(merged, dirs);
    // One start time, agreed at the barrier after the late shard came.
    const starts = dirs.map((d) => runJson(d).start_sync.start_at);
    expect(new Set(starts).size).toBe(1);
    expect(runs[0].err).toMatch(/all 3 shards ready; starting at/);
  }, 90_000);

  it('a shard that fails: the merge pod\'s gather exits 1 naming it instead of waiting forever', async () => {
    const port = await freePort();
    const root = tmpDir();
    const peersT = `http://127.0.0.3{i}:${port}`;
    const base = ['k8s', 'shard', '--shards', '2', '--peers', peersT, '--start-margin', '1s', '--barrier-timeout', '20s', '--linger', '20s'];
    const run = ['--', 'run', '--base-url', server.baseUrl, '--concurrency', '2', '--requests', '4', '--max-tokens', '4', '--quiet'];
    const gathering = cli(['k8s', 'gather', '--shards', '2', '--peers', peersT, '--to', join(root, 'results'), '--copy', '--timeout', '40s', '--poll', '200ms']);
    const env = (i: number) => ({ TOKENFLOOD_SHARDS: '2', JOB_COMPLETION_INDEX: String(i) });
    const shards = await Promise.all([
      cli([...base, '--index', '0', '--listen', `127.0.0.30:${port}`, '--dir', join(root, 'pod-0'), ...run], env(0)),
      // Shard 1's results directory cannot be made: its run fails (exit 2) without a summary.
      cli([...base, '--index', '1', '--listen', `127.0.0.31:${port}`, '--dir', '/proc/no-such-dir/x', ...run], env(1)),
    ]);
    expect(shards[0].code, shards[0].err).toBe(0);
    expect(shards[1].code).toBe(2);
    const g = await gathering;
    expect(g.code, g.err).toBe(1);
    expect(g.err).toMatch(/not merging: shard 1\/2 failed \(exit 2\)/);
  }, 90_000);

  it('shared volume: the shards write on it, gather finds their results there (no copy) and merge runs', async () => {
    const port = await freePort();
    const root = tmpDir();
    const results = join(root, 'results');
    const peersT = `http://127.0.0.5{i}:${port}`;
    const base = ['k8s', 'shard', '--shards', '2', '--peers', peersT, '--start-margin', '3s', '--barrier-timeout', '30s', '--linger', '30s'];
    const run = ['--', 'run', '--base-url', server.baseUrl, '--concurrency', '2', '--requests', '6', '--max-tokens', '4', '--quiet'];
    const gathering = cli(['k8s', 'gather', '--shards', '2', '--peers', peersT, '--to', results, '--timeout', '60s', '--poll', '200ms']);
    const env = (i: number) => ({ TOKENFLOOD_SHARDS: '2', JOB_COMPLETION_INDEX: String(i) });
    const shards = await Promise.all([0, 1].map((i) => cli([...base, '--index', String(i), '--listen', `127.0.0.5${i}:${port}`, '--dir', join(results, `shard-${i}`), ...run], env(i))));
    for (const r of shards) expect(r.code, r.err).toBe(0);
    const g = await gathering;
    expect(g.code, g.err).toBe(0);
    const m = await inProcess(['merge', join(results, 'shard-0'), join(results, 'shard-1'), '--out', join(results, 'merged'), '--json']);
    expect(m.code, m.err).toBe(0);
    expect(JSON.parse(m.out).requests.total).toBe(6);
  }, 90_000);

  it('a shard pod that dies mid-run (SIGKILL, as the OOM killer does): gather names it once it stops answering', async () => {
    const port = await freePort();
    const root = tmpDir();
    const peersT = `http://127.0.0.6{i}:${port}`;
    const gathering = cli(['k8s', 'gather', '--shards', '1', '--peers', peersT, '--to', join(root, 'results'), '--copy', '--timeout', '60s', '--lost-after', '1s', '--poll', '200ms']);
    // Its own process group, so the agent and its run child die together, as a pod's containers do.
    const agent = spawn(process.execPath, [CLI, 'k8s', 'shard', '--shards', '1', '--index', '0', '--peers', peersT, '--listen', `127.0.0.60:${port}`, '--dir', join(root, 'pod-0'), '--start-margin', '1s', '--', 'run', '--base-url', server.baseUrl, '--concurrency', '1', '--duration', '60s', '--quiet'], { stdio: 'ignore', detached: true, env: { ...process.env, TOKENFLOOD_SHARDS: '1', JOB_COMPLETION_INDEX: '0' } });
    const exited = new Promise((r) => agent.on('exit', r));
    // Killed once it is running (and gather, polling every 200 ms, has seen it), however slow the machine.
    for (let i = 0; i < 150; i++) {
      const st = await fetch(`http://127.0.0.60:${port}/status`).then((r) => r.json(), () => null);
      if (st?.state === 'running') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    await new Promise((r) => setTimeout(r, 1000));
    process.kill(-agent.pid!, 'SIGKILL');
    await exited;
    const g = await gathering;
    expect(g.code, g.err).toBe(1);
    expect(g.err).toMatch(/not merging: shard 0\/1 stopped answering \d+ s ago while running/);
  }, 90_000);

  it('a shard that never comes: gather names it when its timeout passes', async () => {
    const port = await freePort();
    const g = await cli(['k8s', 'gather', '--shards', '2', '--peers', `http://127.0.0.4{i}:${port}`, '--to', tmpDir(), '--timeout', '1s', '--poll', '200ms']);
    expect(g.code).toBe(1);
    expect(g.err).toMatch(/shard 0\/2 never answered after 1 s; shard 1\/2 never answered/);
  }, 30_000);

  it('merge refuses shards of different runs, a missing shard and a shard given twice (exit 2, saying why)', async () => {
    const root = tmpDir();
    const at = startIn(0);
    const base = ['run', '--base-url', server.baseUrl, '--concurrency', '2', '--requests', '3', '--max-tokens', '4', '--start-at', at, '--quiet'];
    const r = await Promise.all([
      cli([...base, '--shard', '0/2', '--out', join(root, 'a0')]),
      cli([...base, '--shard', '1/2', '--out', join(root, 'a1')]),
      cli(['run', '--base-url', server.baseUrl, '--concurrency', '2', '--requests', '3', '--max-tokens', '5', '--start-at', at, '--quiet', '--shard', '1/2', '--out', join(root, 'b1')]),
      cli(['run', '--base-url', server.baseUrl, '--requests', '3', '--max-tokens', '4', '--quiet', '--out', join(root, 'whole')]),
    ]);
    for (const x of r) expect(x.code, x.err).toBe(0);
    const differ = await inProcess(['merge', join(root, 'a0'), join(root, 'b1'), '--out', join(root, 'm1')]);
    expect(differ.code).toBe(2);
    expect(differ.err).toMatch(/not a shard of the same run.*config hash.*max_tokens/);
    const missing = await inProcess(['merge', join(root, 'a0'), '--out', join(root, 'm2')]);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('shard 1/2 missing');
    const twice = await inProcess(['merge', join(root, 'a0'), join(root, 'a0'), join(root, 'a1'), '--out', join(root, 'm3')]);
    expect(twice.code).toBe(2);
    expect(twice.err).toContain('shard 0/2 given twice');
    const whole = await inProcess(['merge', join(root, 'a0'), join(root, 'whole'), '--out', join(root, 'm4')]);
    expect(whole.code).toBe(2);
    expect(whole.err).toContain('has no shard');
    const into = await inProcess(['merge', join(root, 'a0'), join(root, 'a1'), '--out', join(root, 'a1'), '--overwrite']);
    expect(into.code).toBe(2);
    expect(into.err).toContain("is shard 1/2's directory");
    const ok = await inProcess(['merge', join(root, 'a0'), join(root, 'a1'), '--out', join(root, 'm5'), '--json']);
    expect(ok.code, ok.err).toBe(0);
    expect(JSON.parse(ok.out).requests.total).toBe(3);
    // The merged run.json keeps the shared config, not shard 0's own shard and directory.
    expect(runJson(join(root, 'm5')).config).toMatchObject({ out: join(root, 'm5'), max_tokens: 4 });
    expect(runJson(join(root, 'm5')).config.shard).toBeUndefined();
    // A start time in the past: the shard starts at once and says so.
    expect(r[0].err).toMatch(/--start-at .* has passed/);
  }, 60_000);
});
