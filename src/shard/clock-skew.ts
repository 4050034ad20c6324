// The clock-skew check of a sharded run: this machine's wall clock against the target server's HTTP Date header.
import type { GetClient } from '../backends/get-client.js';

/** One probe: local send and receive times (Date.now()) and the server's Date header (whole seconds). */
interface Probe {
  sentMs: number;
  receivedMs: number;
  serverMs: number;
}

export interface ClockOffset {
  /** How: a Date header changing second between two probes (`date_boundary`), one probe (`date_header`), or none. */
  method: 'date_boundary' | 'date_header' | 'none';
  /** Server clock − local clock, ms; null when no probe had a Date header. */
  offset_ms: number | null;
  /** The true offset lies within offset_ms ± uncertainty_ms (if the server's Date is itself on time). */
  uncertainty_ms: number | null;
  probes: number;
  /** Why there is no estimate. */
  error?: string;
}

const round1 = (x: number): number => Math.round(x * 10) / 10;

/**
 * Estimate server − local clock offset from Date headers (RFC 9110: whole seconds, truncated).
 * One probe: the server read D somewhere in [D, D + 1000) during [sent, received], so
 * offset = D + 500 − (sent + received)/2 ± (500 + (received − sent)/2).
 * Probing until the header changes from D₀ to D₁ = D₀ + 1 s pins the moment the server's clock passed D₁ between
 * the earlier probe's send and the later one's receipt: offset = D₁ − (sent₀ + received₁)/2 ± (received₁ − sent₀)/2.
 */
export function offsetFromProbes(probes: readonly Probe[]): ClockOffset {
  if (!probes.length) return { method: 'none', offset_ms: null, uncertainty_ms: null, probes: 0, error: 'no Date header in the answers' };
  for (let k = 1; k < probes.length; k++) {
    const a = probes[k - 1];
    const b = probes[k];
    if (b.serverMs > a.serverMs) {
      const mid = (a.sentMs + b.receivedMs) / 2;
      return { method: 'date_boundary', offset_ms: round1(b.serverMs - mid), uncertainty_ms: round1((b.receivedMs - a.sentMs) / 2), probes: probes.length };
    }
  }
  const p = probes[0];
  return { method: 'date_header', offset_ms: round1(p.serverMs + 500 - (p.sentMs + p.receivedMs) / 2), uncertainty_ms: round1(500 + (p.receivedMs - p.sentMs) / 2), probes: probes.length };
}

/**
 * Probe `url` (no credentials: any answer, 404 or 401 included, carries a Date header) every `gapMs` for up to
 * `budgetMs`, stopping at the first change of second. Never throws: a failure is recorded.
 */
export async function measureClockOffset(url: string, get: GetClient, o: { budgetMs?: number; gapMs?: number; signal?: AbortSignal } = {}): Promise<ClockOffset> {
  const budget = o.budgetMs ?? 1300;
  const gap = o.gapMs ?? 20;
  const probes: Probe[] = [];
  const t0 = Date.now();
  let error: string | undefined;
  while (Date.now() - t0 < budget && !o.signal?.aborted) {
    const sentMs = Date.now();
    try {
      const res = await get.get(url, { headers: {}, deadlineMs: 2000, maxBytes: 4096, signal: o.signal });
      const receivedMs = Date.now();
      const d = res.headers.date;
      const serverMs = typeof d === 'string' ? Date.parse(d) : NaN;
      if (Number.isNaN(serverMs)) {
        error = 'the server sent no Date header';
        break;
      }
      probes.push({ sentMs, receivedMs, serverMs });
      if (probes.length > 1 && serverMs > probes[probes.length - 2].serverMs) break;
    } catch (e) {
      error = (e as Error).message.slice(0, 200);
      break;
    }
    await new Promise((r) => setTimeout(r, gap));
  }
  const r = offsetFromProbes(probes);
  return error && r.method === 'none' ? { ...r, error } : r;
}
