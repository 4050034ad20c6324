// npm run bench:peers (bench/peers.mjs) against a stand-in flood.sh: flags, the unset variable, rows, overflows, start-up medians.
import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tmpDir } from './helpers.js';
// @ts-expect-error plain .mjs bench module, no types
import { listenOverflowsFromNetstat, listenOverflowsFromNstat } from '../bench/peers-table.mjs';

const script = fileURLToPath(new URL('../bench/peers.mjs', import.meta.url));

function bench(args: string[], env: Record<string, string | undefined>) {
  const e: Record<string, string | undefined> = { ...process.env, BENCH_QUIET_WAIT_S: '0', ...env };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete e[k];
  const r = spawnSync(process.execPath, [script, ...args], { env: e as NodeJS.ProcessEnv, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/**
 * A stand-in for the peers' flood.sh: logs its argv, and prints figures derived from them (TTFT Δ p50 = CONC/10,
 * p99 = CONC × 1.5, ITL Δ p99 = N/100, 99 gaps per request, CPU-s from a per-call counter), as the real one prints one JSON line.
 * vllmcur fails the way a Python client without aiohttp does.
 */
function fakePeers(): { dir: string; calls: () => string[][] } {
  const dir = tmpDir('tf-peers-');
  const sh = `#!/usr/bin/env bash
TOOL=$1 CONC=$2 N=$3
echo "$TOOL $CONC $N" >> "${dir}/calls.txt"
mkdir -p "$RUN_DIR"
if [ "$TOOL" = vllmcur ]; then
  printf 'Traceback (most recent call last):\\nModuleNotFoundError: No module named '"'"'aiohttp'"'"'\\n' > "$RUN_DIR/tool.log"
  echo '{"tool":"vllmcur","error":"no client results","ok":0,"rc":1,"cpu_s":0.1,"peak_rss_mb":20}'
  exit 0
fi
[ -f "$TF_CLI" ] || { echo '{"error":"no TF_CLI"}'; exit 1; }
K=$(wc -l < "${dir}/calls.txt")
CPU=$(awk -v k="$K" 'BEGIN{print (k%3)/10+0.1}')
awk -v c="$CONC" -v n="$N" -v cpu="$CPU" -v t="$TOOL" -v rd="$RUN_DIR" 'BEGIN{printf "{\\"tool\\":\\"%s\\",\\"client_itl_n\\":%d,\\"ok\\":%d,\\"failed\\":0,\\"d_ttft_p50\\":%g,\\"d_ttft_p99\\":%g,\\"d_itl_p99\\":%g,\\"cpu_s\\":%g,\\"peak_rss_mb\\":%g,\\"rc\\":0,\\"run_dir\\":\\"%s\\"}\\n", t, n*99, n, c/10, c*1.5, n/100, cpu, 100+c, rd}'
`;
  writeFileSync(join(dir, 'flood.sh'), sh);
  chmodSync(join(dir, 'flood.sh'), 0o755);
  writeFileSync(join(dir, 'cli.js'), '');
  const calls = () => (existsSync(join(dir, 'calls.txt')) ? readFileSync(join(dir, 'calls.txt'), 'utf8').trim().split('\n').map((l) => l.split(' ')) : []);
  return { dir, calls };
}

const readReport = (out: string) => {
  const f = readdirSync(out);
  const json = f.find((x) => /^peers-.*\.json$/.test(x));
  const md = f.find((x) => /^peers-.*\.md$/.test(x));
  expect(json && md).toBeTruthy();
  return { report: JSON.parse(readFileSync(join(out, json!), 'utf8')), md: readFileSync(join(out, md!), 'utf8') };
};

describe('npm run bench:peers', () => {
  it('without TOKENFLOOD_PEERS says how to set it, exits 0 and writes nothing', () => {
    const out = tmpDir();
    const r = bench(['--out', out], { TOKENFLOOD_PEERS: undefined });
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/TOKENFLOOD_PEERS=\S+ npm run bench:peers/);
    expect(readdirSync(out)).toEqual([]);
  });

  it('bad input is exit 2 with one message naming the variable or flag, and runs nothing', () => {
    const { dir, calls } = fakePeers();
    const empty = tmpDir();
    const cases: [string[], Record<string, string>, RegExp][] = [
      [[], { TOKENFLOOD_PEERS: empty }, /TOKENFLOOD_PEERS=.*no flood\.sh/],
      [['--streams', '0'], { TOKENFLOOD_PEERS: dir }, /--streams: expected positive integers/],
      [['--streams', '20,x'], { TOKENFLOOD_PEERS: dir }, /--streams/],
      [['--clients', 'tokenflood,jmeter'], { TOKENFLOOD_PEERS: dir }, /--clients: unknown client 'jmeter' \(valid: tokenflood, vllmcur/],
      [['--repeat'], { TOKENFLOOD_PEERS: dir }, /--repeat: missing value/],
      [['--bogus'], { TOKENFLOOD_PEERS: dir }, /unknown option '--bogus'/],
      [['--rounds', '0'], { TOKENFLOOD_PEERS: dir }, /--rounds: expected positive integers/],
      [['--rounds', 'three'], { TOKENFLOOD_PEERS: dir }, /--rounds: expected positive integers/],
      [['--rounds', '2,3'], { TOKENFLOOD_PEERS: dir }, /--rounds: expected one positive integer, got '2,3'/],
      [['--rounds'], { TOKENFLOOD_PEERS: dir }, /--rounds: missing value/],
      [[], { TOKENFLOOD_PEERS: dir, TF_CLI: join(dir, 'missing.js') }, /tokenflood CLI not built at/],
    ];
    for (const [args, env, re] of cases) {
      const r = bench(args, env);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err.trim().split('\n')).toHaveLength(1);
      expect(r.err).toMatch(re);
    }
    expect(calls()).toEqual([]);
  });

  it('runs every client at every stream count with N = per-stream × streams, and writes the table as JSON and markdown', () => {
    const { dir, calls } = fakePeers();
    const out = tmpDir();
    const r = bench(['--streams', '2,3', '--clients', 'tokenflood,vllmcur', '--per-stream', '5', '--repeat', '3', '--out', out], { TOKENFLOOD_PEERS: dir, TF_CLI: join(dir, 'cli.js') });
    expect(r.code, r.err).toBe(0);
    const c = calls();
    // back to back: streams outer, clients inner, then start-up plus one request per client
    expect(c.slice(0, 4)).toEqual([['tokenflood', '2', '10'], ['vllmcur', '2', '10'], ['tokenflood', '3', '15'], ['vllmcur', '3', '15']]);
    expect(c.slice(4)).toEqual([['tokenflood', '1', '1'], ['tokenflood', '1', '1'], ['tokenflood', '1', '1'], ['vllmcur', '1', '1']]);
    const { report, md } = readReport(out);
    expect(report.rows).toHaveLength(4);
    for (const row of report.rows) {
      const [, conc, n] = c.find(([t, s]) => t === row.client && Number(s) === row.streams)!;
      expect(row.n).toBe(Number(n));
      if (row.client === 'vllmcur') {
        expect(row.ok).toBe(0);
        expect(row.d_ttft_p99_ms).toBeNull();
        expect(row.client_cpu_s).toBeNull();
        expect(row.error).toMatch(/missing Python module 'aiohttp' \(Debian package python3-aiohttp/);
      } else {
        expect(row.error).toBeNull();
        expect(row.ok).toBe(Number(n));
        expect(row.d_ttft_p50_ms).toBeCloseTo(Number(conc) / 10, 9);
        expect(row.d_ttft_p99_ms).toBeCloseTo(Number(conc) * 1.5, 9);
        expect(row.d_itl_p99_ms).toBeCloseTo(Number(n) / 100, 9);
        expect(row.peak_rss_mb).toBe(100 + Number(conc));
        expect(row.cpu_ms_per_request).toBeCloseTo((row.client_cpu_s * 1000) / row.ok, 9);
        // events = gaps + first tokens = 100 per request here
        expect(row.events).toBe(100 * Number(n));
        expect(row.cpu_us_per_event).toBeCloseTo((row.client_cpu_s * 1e6) / (100 * Number(n)), 9);
      }
      if (process.platform === 'linux') {
        expect(Number.isInteger(row.listen_overflows)).toBe(true);
        expect(row.listen_overflows).toBeGreaterThanOrEqual(0);
      }
      expect(typeof row.load_avg_1m).toBe('number');
    }
    // start-up: three tokenflood runs, CPU-s from the stand-in's per-call counter (calls 5, 6, 7); median of them
    const tf = report.startup.find((s: { client: string }) => s.client === 'tokenflood');
    const cpus = [5, 6, 7].map((k) => (k % 3) / 10 + 0.1);
    expect(tf.runs).toBe(3);
    expect(tf.cpu_s).toEqual(cpus.map((x) => expect.closeTo(x, 9)));
    expect(tf.cpu_s_median).toBeCloseTo([...cpus].sort()[1], 9);
    expect(report.startup.find((s: { client: string }) => s.client === 'vllmcur').error).toMatch(/python3-aiohttp/);
    // markdown: the columns plus listen overflows, one line per row, and the failed rows explained
    expect(md).toMatch(/\| streams \| client \| TTFT Δ p50 ms \| TTFT Δ p99 ms \| ITL Δ p99 ms \| client CPU s \| peak RSS MB \| listen overflows \|/);
    expect(md).toMatch(/\| 3 \| tokenflood \| 0\.30 \| 4\.5 \| 0\.15 \|/);
    expect(md).toMatch(/- vllm bench serve \(2, 3 streams\): no figures, missing Python module 'aiohttp'/);
    // targets: no peer figures means "n/a", never "met"
    const lowest = report.targets.filter((t: { target: string }) => t.target.startsWith('lowest TTFT Δ p50'));
    expect(lowest.map((t: { verdict: string }) => t.verdict)).toEqual(['n/a', 'n/a']);
    expect(report.targets.find((t: { target: string }) => t.target.includes('0.3 CPU-s')).verdict).toBe('met');
  });

  it('--rounds 3 runs the rounds interleaved, prints each round and the median per client and streams, and judges "lowest" in each round', () => {
    const { dir, calls } = fakePeers();
    const out = tmpDir();
    const r = bench(['--rounds', '3', '--streams', '2,3', '--clients', 'tokenflood,locustfast', '--per-stream', '2', '--repeat', '1', '--out', out], { TOKENFLOOD_PEERS: dir, TF_CLI: join(dir, 'cli.js') });
    expect(r.code, r.err).toBe(0);
    const round = [['tokenflood', '2', '4'], ['locustfast', '2', '4'], ['tokenflood', '3', '6'], ['locustfast', '3', '6']];
    expect(calls()).toEqual([...round, ...round, ...round, ['tokenflood', '1', '1'], ['locustfast', '1', '1']]);
    const { report, md } = readReport(out);
    expect(report.rounds).toBe(3);
    expect(report.rows.map((x: { round: number }) => x.round)).toEqual([1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3]);
    // CPU-s of the stand-in cycles with its call counter: tokenflood at 2 streams was calls 1, 5, 9 → 0.2, 0.3, 0.1.
    const med = report.medians.find((x: { client: string; streams: number }) => x.client === 'tokenflood' && x.streams === 2);
    expect(med.client_cpu_s).toBeCloseTo(0.2, 9);
    expect(med.rounds_with_figures).toBe(3);
    expect(med.cpu_us_per_event).toBeCloseTo(0.2e6 / 400, 6);
    expect(report.medians).toHaveLength(4);
    for (const k of [1, 2, 3]) expect(md).toContain(`## Round ${k} of 3`);
    expect(md).toMatch(/## Median of 3 rounds/);
    expect(md).toMatch(/\| CPU µs per event \|/);
    expect(md).toMatch(/\| load avg 1m \|/);
    // Same figures for both clients (the stand-in derives them from CONC and N), so tokenflood ties for lowest in every round.
    const low = report.targets.find((x: { target: string }) => x.target === 'lowest TTFT Δ p99 of all clients at 3 streams in each of 3 rounds');
    expect(low.verdict).toBe('met');
    expect(low.measured).toMatch(/round 1: tokenflood 4\.50, best peer Locust FastHttpUser 4\.50; round 2: .*; round 3: /);
    // CPU per request differs by round (the call counter): tokenflood is not lowest in some round, and the verdict names it.
    const cpu = report.targets.find((x: { target: string }) => x.target.startsWith('lowest client CPU per request (ms) of all clients at 2 streams'));
    expect(cpu.verdict).toMatch(/^NOT met in rounds? \d/);
  });

  it('--startup runs only start-up plus one request', () => {
    const { dir, calls } = fakePeers();
    const out = tmpDir();
    const r = bench(['--startup', '--clients', 'tokenflood', '--repeat', '2', '--out', out], { TOKENFLOOD_PEERS: dir, TF_CLI: join(dir, 'cli.js') });
    expect(r.code, r.err).toBe(0);
    expect(calls()).toEqual([['tokenflood', '1', '1'], ['tokenflood', '1', '1']]);
    const { report } = readReport(out);
    expect(report.rows).toEqual([]);
    expect(report.startup[0].runs).toBe(2);
  });

  it.runIf(process.platform === 'linux')('reads TcpExtListenOverflows from /proc/net/netstat as nstat does', () => {
    const fromProc = listenOverflowsFromNetstat(readFileSync('/proc/net/netstat', 'utf8'));
    expect(Number.isInteger(fromProc)).toBe(true);
    const ns = spawnSync('nstat', ['-az', 'TcpExtListenOverflows'], { encoding: 'utf8' });
    if (ns.status === 0) expect(listenOverflowsFromNstat(ns.stdout)).toBeGreaterThanOrEqual(fromProc);
    expect(listenOverflowsFromNetstat('TcpExt: SyncookiesSent ListenOverflows ListenDrops\nTcpExt: 4 83 90\nIpExt: InNoRoutes\nIpExt: 0\n')).toBe(83);
  });
});
