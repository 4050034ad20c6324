// Side-by-side bench helpers (pure): flags, the kernel's listen-overflow counter, rows, the markdown table, targets.
export const CLIENTS = {
  tokenflood: 'tokenflood',
  vllmcur: 'vllm bench serve',
  vllm2025: 'vllm 2025',
  locust: 'Locust HttpUser',
  locustfast: 'Locust FastHttpUser',
};
export const DEFAULTS = { streams: [20, 100, 500, 1000], clients: ['tokenflood', 'vllmcur', 'vllm2025', 'locustfast'], perStream: 4, repeat: 3, rounds: 1 };

export const USAGE = `usage: npm run bench:peers -- [--streams 20,100,500,1000] [--clients tokenflood,vllmcur,vllm2025,locustfast]
                              [--per-stream 4] [--rounds 1] [--startup] [--repeat 3] [--out bench/results]
  TOKENFLOOD_PEERS  folder holding the peer clients and flood.sh (e.g. ../shared/peers); required
  --streams         concurrent streams per run, comma-separated (N = per-stream × streams requests each)
  --clients         ${Object.keys(CLIENTS).join(', ')}
  --per-stream      requests per stream (default 4)
  --rounds          times to run every client at every stream count, rounds interleaved (round 1 all clients and
                    streams, then round 2, ...); each round's table and the median per client and streams (default 1)
  --startup         only measure start-up plus one request (each client, --repeat times; median)
  --repeat          start-up runs per client (default 3)
  --out             folder for peers-<time>.json and .md (default bench/results)`;

const posInts = (flag, v) => {
  const xs = String(v ?? '').split(',').map((s) => s.trim());
  if (xs.length === 0 || xs.some((s) => !/^[1-9]\d*$/.test(s))) throw new Error(`${flag}: expected positive integers separated by commas, got '${v ?? ''}'`);
  return xs.map(Number);
};

/** argv → options; throws Error with one message naming the flag (exit 2 upstream); `help` asks for the usage. */
export function parseArgs(argv) {
  const o = { ...DEFAULTS, startup: false, out: null, help: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const [flag, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const val = () => {
      const v = inline ?? argv[++i];
      if (v === undefined || (inline === undefined && v.startsWith('--'))) throw new Error(`${flag}: missing value`);
      return v;
    };
    if (flag === '--help' || flag === '-h') o.help = true;
    else if (flag === '--startup') o.startup = true;
    else if (flag === '--streams') o.streams = posInts(flag, val());
    else if (flag === '--per-stream') [o.perStream] = posInts(flag, val());
    else if (flag === '--repeat') [o.repeat] = posInts(flag, val());
    else if (flag === '--rounds') {
      const v = val();
      [o.rounds] = posInts(flag, v);
      if (v.includes(',')) throw new Error(`--rounds: expected one positive integer, got '${v}'`);
    }
    else if (flag === '--out') o.out = val();
    else if (flag === '--clients') {
      const v = val();
      o.clients = v.split(',').map((s) => s.trim());
      const bad = o.clients.filter((c) => !(c in CLIENTS));
      if (bad.length || !v.trim()) throw new Error(`--clients: unknown client '${bad.join(',') || v}' (valid: ${Object.keys(CLIENTS).join(', ')})`);
    } else throw new Error(`unknown option '${flag}' (see --help)`);
  }
  return o;
}

/** The value of TcpExtListenOverflows from the text of /proc/net/netstat (header line, then value line); null if absent. */
export function listenOverflowsFromNetstat(text) {
  const lines = text.split('\n');
  for (let i = 0; i + 1 < lines.length; i++) {
    if (!lines[i].startsWith('TcpExt:') || !lines[i + 1].startsWith('TcpExt:')) continue;
    const names = lines[i].trim().split(/\s+/);
    const vals = lines[i + 1].trim().split(/\s+/);
    const k = names.indexOf('ListenOverflows');
    if (k > 0 && vals[k] !== undefined) return Number(vals[k]);
  }
  return null;
}

/** The value from `nstat -az TcpExtListenOverflows` output; null if absent. */
export function listenOverflowsFromNstat(text) {
  const m = /^TcpExtListenOverflows\s+(\d+)/m.exec(text);
  return m ? Number(m[1]) : null;
}

// Peer output is untrusted text: keep one printable line, short.
const clean = (s) => s.replace(/[^\x20-\x7e]/g, ' ').trim().slice(0, 200);

/** Why a client run gave no figures, from its exit code and log tail; names the Debian package for a missing Python module. */
export function failureReason(log, peersDir) {
  const mod = /ModuleNotFoundError: No module named '([A-Za-z0-9_.]+)'/.exec(log);
  if (mod) {
    const top = mod[1].split('.')[0];
    return `missing Python module '${top}' (Debian package python3-${top.toLowerCase()}; ${peersDir}/setup.sh installs it)`;
  }
  if (/\/usr\/bin\/locust('|:)[^\n]*No such file/.test(log)) return `locust is not installed (Debian package python3-locust; ${peersDir}/setup.sh installs it)`;
  const last = log.split('\n').map(clean).filter(Boolean).pop();
  return last ? `client failed: ${last}` : 'client failed without output';
}

const num = (x) => (typeof x === 'number' && Number.isFinite(x) ? x : null);

/** One table row from flood.sh's JSON line plus the bench's own readings around the run. */
export function toRow({ streams, client, n, flood, overflowsBefore, overflowsAfter, loadAvg1m, machineBusyPct, error }) {
  const ok = num(flood?.ok) ?? 0;
  return {
    streams,
    client,
    label: CLIENTS[client] ?? client,
    n,
    ok,
    failed: n - ok,
    d_ttft_p50_ms: num(flood?.d_ttft_p50),
    d_ttft_p99_ms: num(flood?.d_ttft_p99),
    d_itl_p99_ms: num(flood?.d_itl_p99),
    client_cpu_s: ok ? num(flood?.cpu_s) : null,
    peak_rss_mb: ok ? num(flood?.peak_rss_mb) : null,
    cpu_ms_per_request: ok && num(flood?.cpu_s) !== null ? (flood.cpu_s * 1000) / ok : null,
    // Streamed events the client saw: its inter-token gaps plus each stream's first token (flood.sh's client_itl_n + ok).
    events: ok && num(flood?.client_itl_n) !== null ? flood.client_itl_n + ok : null,
    cpu_us_per_event: ok && num(flood?.cpu_s) !== null && num(flood?.client_itl_n) !== null ? (flood.cpu_s * 1e6) / (flood.client_itl_n + ok) : null,
    listen_overflows: overflowsBefore === null || overflowsAfter === null ? null : overflowsAfter - overflowsBefore,
    load_avg_1m: loadAvg1m,
    machine_busy_pct: machineBusyPct,
    error: error ?? null,
    run_dir: flood?.run_dir ?? null,
    flood: flood ?? null,
  };
}

/** Median of the non-null values; null when there are none. */
export function median(xs) {
  const a = xs.filter((x) => x !== null && x !== undefined).sort((x, y) => x - y);
  if (!a.length) return null;
  const m = Math.floor(a.length / 2);
  return a.length % 2 ? a[m] : (a[m - 1] + a[m]) / 2;
}

const f = (x, d) => (x === null || x === undefined ? '–' : x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d }));

/** The issue's table (plus listen overflows) as markdown; rows without figures say why below it. */
export function markdownTable(rows) {
  const out = ['| streams | client | TTFT Δ p50 ms | TTFT Δ p99 ms | ITL Δ p99 ms | client CPU s | peak RSS MB | listen overflows | CPU µs per event | ok / N | machine busy % | load avg 1m |', '|---|---|---|---|---|---|---|---|---|---|---|---|'];
  for (const r of rows) {
    out.push(`| ${f(r.streams, 0)} | ${r.label} | ${f(r.d_ttft_p50_ms, 2)} | ${f(r.d_ttft_p99_ms, 1)} | ${f(r.d_itl_p99_ms, 2)} | ${f(r.client_cpu_s, 2)} | ${f(r.peak_rss_mb, 0)} | ${f(r.listen_overflows, 0)} | ${f(r.cpu_us_per_event, 1)} | ${r.ok} / ${r.n} | ${f(r.machine_busy_pct, 0)} | ${f(r.load_avg_1m, 2)} |`);
  }
  // One line per client and reason, listing the stream counts it happened at.
  const why = new Map();
  for (const r of rows.filter((x) => x.error)) {
    const k = `${r.label}\u0000${r.error}`;
    why.set(k, [...(why.get(k) ?? []), f(r.streams, 0)]);
  }
  if (why.size) out.push('', ...[...why].map(([k, s]) => `- ${k.split('\u0000')[0]} (${s.join(', ')} streams): no figures, ${k.split('\u0000')[1]}`));
  return out.join('\n');
}

export function markdownStartup(startup) {
  const out = ['| client | runs | CPU s (median) | peak RSS MB (median) | CPU s (min) | peak RSS MB (min) |', '|---|---|---|---|---|---|'];
  for (const s of startup) out.push(`| ${s.label} | ${s.runs} | ${f(s.cpu_s_median, 2)} | ${f(s.peak_rss_mb_median, 0)} | ${f(s.cpu_s_min, 2)} | ${f(s.peak_rss_mb_min, 0)} |`);
  const failed = startup.filter((s) => s.error);
  if (failed.length) out.push('', ...failed.map((s) => `- ${s.label}: ${s.error}`));
  return out.join('\n');
}

const MEDIAN_KEYS = ['ok', 'd_ttft_p50_ms', 'd_ttft_p99_ms', 'd_itl_p99_ms', 'client_cpu_s', 'peak_rss_mb', 'cpu_ms_per_request', 'events', 'cpu_us_per_event', 'listen_overflows', 'load_avg_1m', 'machine_busy_pct'];

/**
 * One row per client and stream count (in first-seen order) holding the median over rounds of each figure, from the
 * rounds that gave figures (`rounds_with_figures`); error is set only when no round gave any.
 */
export function medianRows(rows) {
  const groups = new Map();
  for (const r of rows) {
    const k = `${r.streams}\u0000${r.client}`;
    groups.set(k, [...(groups.get(k) ?? []), r]);
  }
  return [...groups.values()].map((g) => {
    const good = g.filter((r) => !r.error);
    const m = { streams: g[0].streams, client: g[0].client, label: g[0].label, n: g[0].n, rounds: g.length, rounds_with_figures: good.length };
    for (const k of MEDIAN_KEYS) m[k] = median(good.map((r) => r[k]));
    m.ok = m.ok ?? 0;
    m.failed = m.n - m.ok;
    m.error = good.length ? null : g[0].error;
    return m;
  });
}

/**
 * The issue's targets: met, NOT met (by how much), or n/a (not measured / no peer ran). `rows` may hold several
 * rounds (each row's `round`, 1 when absent): "lowest of all clients" must hold in each round; the limits are judged
 * on the median over rounds.
 */
export function judgeTargets(allRows, startup) {
  const t = [];
  const roundsOf = [...new Set(allRows.map((r) => r.round ?? 1))].sort((a, b) => a - b);
  const rows = roundsOf.length > 1 ? medianRows(allRows) : allRows;
  const tf = (s) => rows.find((r) => r.client === 'tokenflood' && r.streams === s && !r.error);
  const add = (target, measured, verdict) => t.push({ target, measured, verdict });
  const lowest = (key, what) => {
    for (const s of [...new Set(allRows.map((r) => r.streams))]) {
      const each = roundsOf.map((round) => {
        const rr = allRows.filter((r) => (r.round ?? 1) === round && r.streams === s);
        const mine = rr.find((r) => r.client === 'tokenflood' && !r.error);
        const peers = rr.filter((r) => r.client !== 'tokenflood' && r[key] !== null);
        const tag = roundsOf.length > 1 ? `round ${round}: ` : '';
        if (!mine || mine[key] === null) return { measured: `${tag}tokenflood not measured`, verdict: 'n/a' };
        if (!peers.length) return { measured: `${tag}tokenflood ${f(mine[key], 2)}; no peer client produced figures`, verdict: 'n/a' };
        const best = peers.reduce((a, b) => (b[key] < a[key] ? b : a));
        return { measured: `${tag}tokenflood ${f(mine[key], 2)}, best peer ${best.label} ${f(best[key], 2)}`, verdict: mine[key] <= best[key] ? 'met' : `NOT met (${f(mine[key] - best[key], 2)} above)` };
      });
      const target = `lowest ${what} of all clients at ${s} streams${roundsOf.length > 1 ? ` in each of ${roundsOf.length} rounds` : ''}`;
      const missed = each.map((e, i) => [roundsOf[i], e]).filter(([, e]) => e.verdict.startsWith('NOT'));
      const verdict = each.some((e) => e.verdict === 'n/a') ? 'n/a'
        : !missed.length ? 'met'
        : roundsOf.length > 1 ? `NOT met in round${missed.length > 1 ? 's' : ''} ${missed.map(([r, e]) => `${r} ${e.verdict.slice(8)}`).join(', ')}` : each[0].verdict;
      add(target, each.map((e) => e.measured).join('; '), verdict);
    }
  };
  lowest('d_ttft_p50_ms', 'TTFT Δ p50');
  lowest('d_ttft_p99_ms', 'TTFT Δ p99');
  lowest('d_itl_p99_ms', 'ITL Δ p99');
  lowest('cpu_ms_per_request', 'client CPU per request (ms)');
  const limit = (target, s, key, max, unit) => {
    const r = tf(s);
    if (!r || r[key] === null) return add(target, 'not measured', 'n/a');
    add(target, `${f(r[key], 2)} ${unit}`, r[key] <= max ? 'met' : `NOT met (${f(r[key] - max, 2)} ${unit} over)`);
  };
  limit('TTFT Δ p99 <= 5 ms at 100 streams', 100, 'd_ttft_p99_ms', 5, 'ms');
  limit('TTFT Δ p99 <= 20 ms at 500 streams', 500, 'd_ttft_p99_ms', 20, 'ms');
  limit('TTFT Δ p99 <= 50 ms at 1,000 streams', 1000, 'd_ttft_p99_ms', 50, 'ms');
  limit('ITL Δ p99 <= 2 ms at 500 streams', 500, 'd_itl_p99_ms', 2, 'ms');
  limit('client CPU per streamed event <= 10 µs at 500 streams', 500, 'cpu_us_per_event', 10, 'µs');
  limit('TcpExtListenOverflows does not move during tokenflood at 1,000 streams', 1000, 'listen_overflows', 0, 'overflows');
  limit('peak RSS <= 80 MB at 100 streams', 100, 'peak_rss_mb', 80, 'MB');
  limit('peak RSS <= 120 MB at 1,000 streams', 1000, 'peak_rss_mb', 120, 'MB');
  const st = startup?.find((s) => s.client === 'tokenflood' && !s.error);
  const sLimit = (target, key, max, unit) =>
    !st ? add(target, 'not measured', 'n/a') : add(target, `${f(st[key], 2)} ${unit} (median of ${st.runs})`, st[key] <= max ? 'met' : `NOT met (${f(st[key] - max, 2)} ${unit} over)`);
  sLimit('start-up plus one request <= 0.3 CPU-s', 'cpu_s_median', 0.3, 'CPU-s');
  sLimit('start-up plus one request <= 70 MB', 'peak_rss_mb_median', 70, 'MB');
  return t;
}

export function markdownTargets(targets) {
  return ['| target | measured | verdict |', '|---|---|---|', ...targets.map((x) => `| ${x.target} | ${x.measured} | ${x.verdict} |`)].join('\n');
}
