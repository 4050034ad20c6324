// Resource use in one place of the terminal summary and report: the client host (CPU with its user/system split,
// memory, network bytes), a local --server-pid process, and a remote server's process from its /metrics.
import type { Summary } from '../metrics/summary-model.js';

type Host = Record<string, number | undefined>;
const n = (x: unknown): number | undefined => (typeof x === 'number' && Number.isFinite(x) ? x : undefined);
const f1 = (x: number | undefined): string => (x === undefined ? '-' : x.toFixed(1));
const MB = 1e6;

/** Plain text lines (figures only: no server text), or none when the run sampled nothing. */
export function resourceLines(s: Pick<Summary, 'gpu' | 'server'>): string[] {
  const out: string[] = [];
  const h = (s.gpu as { host?: Host } | undefined)?.host;
  if (h && n(h.samples)) {
    const split = n(h.cpu_user_pct_mean) !== undefined ? ` (user ${f1(h.cpu_user_pct_mean)}%, system ${f1(h.cpu_sys_pct_mean)}%)` : '';
    const net =
      n(h.net_rx_bytes) !== undefined
        ? `; network received ${f1(h.net_rx_bytes! / MB)} MB (${f1(n(h.net_rx_mb_per_s))} MB/s), sent ${f1((h.net_tx_bytes ?? 0) / MB)} MB (${f1(n(h.net_tx_mb_per_s))} MB/s)`
        : '';
    out.push(`client host: CPU ${f1(h.cpu_pct_mean)}% mean, ${f1(h.cpu_pct_max)}% max${split}; memory used ${f1(h.mem_used_mib_max)} MiB max${net}`);
    if (n(h.server_cpu_pct_mean) !== undefined || n(h.server_rss_mib_max) !== undefined) {
      const ss = n(h.server_cpu_user_pct_mean) !== undefined ? ` (user ${f1(h.server_cpu_user_pct_mean)}%, system ${f1(h.server_cpu_sys_pct_mean)}%)` : '';
      out.push(`server process (--server-pid): CPU ${f1(h.server_cpu_pct_mean)}% mean (100% = one core)${ss}; RSS ${f1(h.server_rss_mib_max)} MiB max`);
    }
  }
  const p = s.server?.process;
  if (p) {
    const ss = p.cpu_user_pct_mean !== null ? ` (user ${f1(p.cpu_user_pct_mean ?? undefined)}%, system ${f1(p.cpu_system_pct_mean ?? undefined)}%)` : '';
    out.push(`server process (/metrics): CPU ${f1(p.cpu_pct_mean ?? undefined)}% mean (100% = one core)${ss}; RSS ${f1(p.rss_mib_mean ?? undefined)} MiB mean, ${f1(p.rss_mib_max ?? undefined)} MiB max`);
  }
  return out;
}
