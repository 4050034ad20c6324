// Side by side with peer clients: tokenflood and each peer through $TOKENFLOOD_PEERS/flood.sh, back to back; writes bench/results/peers-<time>.{json,md}.
//
// flood.sh (reference material outside this repository) starts its own flood server per run, runs one client at
// CONC streams for N requests of flood-100-20 and prints one JSON line of client-minus-server deltas, with the
// client's CPU and peak RSS from /usr/bin/time. Around each run this script reads the kernel's
// TcpExtListenOverflows counter (a SYN dropped from a full accept queue costs a 1 s retransmit, which lands in
// TTFT), the load average and the machine's busy %. See docs/performance.md.
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machineBusyPct, machineTicks } from './stats.mjs';
import { waitForQuiet } from './procs.mjs';
import { CLIENTS, USAGE, failureReason, judgeTargets, listenOverflowsFromNetstat, listenOverflowsFromNstat, markdownStartup, markdownTable, markdownTargets, median, medianRows, parseArgs, toRow } from './peers-table.mjs';

// As in bench/run.mjs: before each run wait (at most BENCH_QUIET_WAIT_S) for other load to fall to BENCH_QUIET_PCT.
const QUIET_PCT = Number(process.env.BENCH_QUIET_PCT ?? 25);
const QUIET_WAIT_S = Number(process.env.BENCH_QUIET_WAIT_S ?? 20);
const root = fileURLToPath(new URL('..', import.meta.url));
const peersDir = process.env.TOKENFLOOD_PEERS;

let opts;
try {
  opts = parseArgs(process.argv.slice(2));
} catch (e) {
  console.error(`bench:peers: ${e.message}`);
  process.exit(2);
}
if (opts.help) {
  console.log(USAGE);
  process.exit(0);
}
if (!peersDir) {
  console.log('bench:peers: TOKENFLOOD_PEERS is not set, nothing to run.\n' +
    'Point it at the folder holding the peer clients and flood.sh, e.g.\n' +
    '  TOKENFLOOD_PEERS=../shared/peers npm run bench:peers\n' + USAGE);
  process.exit(0);
}
const flood = resolve(peersDir, 'flood.sh');
if (!existsSync(flood)) {
  console.error(`bench:peers: TOKENFLOOD_PEERS=${peersDir}: no flood.sh in that folder`);
  process.exit(2);
}
const tfCli = process.env.TF_CLI ?? join(root, 'dist/bin/tokenflood.js');
if (opts.clients.includes('tokenflood') && !existsSync(tfCli)) {
  console.error(`bench:peers: tokenflood CLI not built at ${tfCli} (run npm run build)`);
  process.exit(2);
}
const outDir = resolve(opts.out ?? join(root, 'bench/results'));
const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
const rawDir = join(tmpdir(), `tokenflood-peers-${stamp}`);

function listenOverflows() {
  try {
    const v = listenOverflowsFromNetstat(readFileSync('/proc/net/netstat', 'utf8'));
    if (v !== null) return v;
  } catch {}
  try {
    return listenOverflowsFromNstat(execFileSync('nstat', ['-az', 'TcpExtListenOverflows'], { encoding: 'utf8' }));
  } catch {
    return null;
  }
}

/** Run flood.sh once; resolves its JSON line (or null) and the reason it failed, if it did. Kills its process group after timeoutMs. */
function runFlood(client, conc, n, timeoutMs) {
  const runDir = join(rawDir, `${client}-c${conc}-n${n}-${Date.now()}`);
  return new Promise((done) => {
    const p = spawn('bash', [flood, client, String(conc), String(n)], {
      cwd: root,
      env: { ...process.env, RUN_DIR: runDir, TF_CLI: tfCli },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    let timedOut = false;
    const kill = setTimeout(() => {
      timedOut = true;
      try { process.kill(-p.pid, 'SIGTERM'); } catch {}
    }, timeoutMs);
    p.on('close', (code) => {
      clearTimeout(kill);
      let res = null;
      try { res = JSON.parse(out.trim().split('\n').pop()); } catch {}
      let log = '';
      try { log = readFileSync(join(runDir, 'tool.log'), 'utf8').slice(-4000); } catch {}
      let error = null;
      if (timedOut) error = `no result within ${Math.round(timeoutMs / 1000)} s (killed)`;
      else if (!res) error = failureReason(err || out, peersDir);
      else if (res.error || res.rc || !res.ok) error = failureReason(log || res.error || '', peersDir);
      done({ res, error, code });
    });
  });
}

async function measure(client, streams, n) {
  const busyBefore = QUIET_WAIT_S > 0 ? await waitForQuiet(QUIET_PCT, QUIET_WAIT_S) : null;
  const load = loadavg()[0];
  const o0 = listenOverflows();
  const m0 = machineTicks();
  const waves = Math.ceil(n / streams);
  const { res, error } = await runFlood(client, streams, n, Math.max(120, waves * 30 + 60) * 1000);
  const row = toRow({ streams, client, n, flood: res, overflowsBefore: o0, overflowsAfter: listenOverflows(), loadAvg1m: load, machineBusyPct: machineBusyPct(m0, machineTicks()), error });
  row.busy_before_pct = busyBefore;
  return row;
}

const fmt = (x, d = 2) => (x === null || x === undefined ? '–' : x.toFixed(d));
const machine = { cpu: cpus()[0]?.model, cores: availableParallelism(), memGB: Math.round(totalmem() / 2 ** 30), node: process.version, platform: process.platform };
let commit = null;
try { commit = execFileSync('git', ['-C', root, 'describe', '--always', '--dirty'], { encoding: 'utf8' }).trim(); } catch {}
console.error(`bench:peers on ${machine.cpu}, ${machine.cores} cores, node ${machine.node}, tokenflood ${commit ?? '?'}; load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);

// Rounds interleaved (round 1: every stream count and client, then round 2, ...): a busy spell on the shared machine
// then lands on one round of every client rather than on every round of one client.
const rows = [];
for (let round = 1; round <= opts.rounds && !opts.startup; round++) {
  for (const s of opts.streams) {
    for (const c of opts.clients) {
      const n = opts.perStream * s;
      process.stderr.write(`  ${opts.rounds > 1 ? `round ${round} ` : ''}${String(s).padStart(5)} streams  ${CLIENTS[c].padEnd(20)} N=${n} ... `);
      const r = await measure(c, s, n);
      r.round = round;
      rows.push(r);
      process.stderr.write(r.error ? `no figures: ${r.error}\n`
        : `TTFT Δ p50 ${fmt(r.d_ttft_p50_ms)} p99 ${fmt(r.d_ttft_p99_ms)}, ITL Δ p99 ${fmt(r.d_itl_p99_ms)} ms, ${fmt(r.client_cpu_s)} CPU-s, ${fmt(r.peak_rss_mb, 0)} MB, overflows ${r.listen_overflows ?? '–'}\n`);
    }
  }
}

// Start-up plus one request: flood.sh at one stream, one request (a 2 s stream of flood-100-20).
const startup = [];
for (const c of opts.clients) {
  process.stderr.write(`  start-up + 1 request  ${CLIENTS[c].padEnd(20)} x${opts.repeat} ... `);
  const runs = [];
  let error = null;
  for (let i = 0; i < opts.repeat && !error; i++) {
    const r = await measure(c, 1, 1);
    if (r.error) error = r.error;
    else runs.push(r);
  }
  const cpu = runs.map((r) => r.client_cpu_s);
  const rss = runs.map((r) => r.peak_rss_mb);
  const s = { client: c, label: CLIENTS[c], runs: runs.length, cpu_s: cpu, peak_rss_mb: rss, cpu_s_median: median(cpu), peak_rss_mb_median: median(rss),
    cpu_s_min: runs.length ? Math.min(...cpu) : null, peak_rss_mb_min: runs.length ? Math.min(...rss) : null, error };
  startup.push(s);
  process.stderr.write(error ? `no figures: ${error}\n` : `${fmt(s.cpu_s_median)} CPU-s, ${fmt(s.peak_rss_mb_median, 0)} MB (medians)\n`);
}

const targets = judgeTargets(rows, startup);
const medians = opts.rounds > 1 ? medianRows(rows) : null;
const report = { date: new Date().toISOString(), machine, tokenflood: commit, tf_cli: tfCli, peers_dir: peersDir, per_stream: opts.perStream, rounds: opts.rounds, load_avg_end: loadavg(), raw_dir: rawDir, rows, medians, startup, targets };
const roundTables = [];
for (let round = 1; round <= opts.rounds && rows.length; round++) {
  const rr = rows.filter((r) => r.round === round);
  if (opts.rounds > 1) roundTables.push(`## Round ${round} of ${opts.rounds}`, '');
  roundTables.push(markdownTable(rr), '');
}
if (medians) roundTables.push(`## Median of ${opts.rounds} rounds (per client and streams; load average and busy % are medians too)`, '', markdownTable(medians), '');
const md = [
  `# Side by side with peer clients, ${report.date.slice(0, 16).replace('T', ' ')} UTC`,
  '',
  `${machine.cpu}, ${machine.cores} cores, ${machine.memGB} GB, node ${machine.node}; tokenflood ${commit ?? '?'} (${tfCli}); flood-100-20, N = ${opts.perStream} × streams; ` +
    `load average at the end ${loadavg().map((x) => x.toFixed(2)).join(' ')}. Raw outputs: ${rawDir}.`,
  '',
  ...roundTables,
  'Start-up plus one request (1 stream, 1 request):',
  '',
  markdownStartup(startup),
  '',
  markdownTargets(targets),
  '',
].join('\n');
mkdirSync(outDir, { recursive: true });
const base = join(outDir, `peers-${stamp}`);
writeFileSync(`${base}.json`, JSON.stringify(report, null, 2) + '\n');
writeFileSync(`${base}.md`, md);
console.log(md);
console.error(`wrote ${base}.json and ${base}.md`);
