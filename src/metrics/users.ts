// The summary's `users` block (--users/--user-rate, the user-centric executor): achieved vs intended rate, per-user spread.
import type { RequestRecord } from './record.js';

export interface UsersSummary {
  /** Users that sent at least one measured request (of --users). */
  users: number;
  /** Intended aggregate rate: --users × --user-rate (requests/s); null when the run's config is not known. */
  target_rate: number | null;
  /** Achieved send rate: (measured requests − 1) ÷ (last send − first send), requests/s. */
  achieved_rate: number | null;
  /** Measured requests per user: min, mean, max. */
  requests_per_user: { min: number; mean: number; max: number };
  /** Gaps between one user's consecutive sends (ms, all users pooled): min and mean; null with under two sends per user. */
  send_gap_ms: { min: number; mean: number } | null;
}

/** Collects the send times of each user's measured requests (first attempts only: a retry is not a new send). */
export class UsersAggregator {
  private readonly sends = new Map<number, number[]>();

  add(r: RequestRecord): void {
    if (r.warmup || r.user === undefined || r.attempt !== 1) return;
    let s = this.sends.get(r.user);
    if (!s) this.sends.set(r.user, (s = []));
    s.push(r.sent_at_ms);
  }

  summary(config: Record<string, unknown> | undefined): UsersSummary | undefined {
    if (this.sends.size === 0) return undefined;
    const r3 = (x: number) => Math.round(x * 1000) / 1000;
    const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
    const users = num(config?.users);
    const perUser = num(config?.userRate ?? config?.user_rate);
    let first = Infinity, last = -Infinity, n = 0, gaps = 0, gapSum = 0, gapMin = Infinity, min = Infinity, max = 0;
    for (const times of this.sends.values()) {
      times.sort((a, b) => a - b);
      n += times.length;
      min = Math.min(min, times.length);
      max = Math.max(max, times.length);
      first = Math.min(first, times[0]);
      last = Math.max(last, times[times.length - 1]);
      for (let i = 1; i < times.length; i++) {
        const g = times[i] - times[i - 1];
        gaps++;
        gapSum += g;
        gapMin = Math.min(gapMin, g);
      }
    }
    return {
      users: this.sends.size,
      target_rate: users !== undefined && perUser !== undefined ? r3(users * perUser) : null,
      achieved_rate: n > 1 && last > first ? r3(((n - 1) * 1000) / (last - first)) : null,
      requests_per_user: { min, mean: r3(n / this.sends.size), max },
      send_gap_ms: gaps > 0 ? { min: r3(gapMin), mean: r3(gapSum / gaps) } : null,
    };
  }
}
