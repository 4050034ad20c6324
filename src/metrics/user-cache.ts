// The summary's `by_user` block: per user of the data (`user_id`, or the user-centric executor's user), its requests,
// latency and prefix-cache benefit (cached-token rate), the top users by requests and the rest pooled as "others".
import { percentile } from './stats.js';
import type { RequestRecord } from './record.js';

/** Users listed by name; the rest are pooled into one "others" row. */
export const TOP_USERS = 10;

export interface UserRow {
  /** Measured requests, ok ones, and failed / (requests − cancelled). */
  requests: number;
  ok: number;
  error_rate: number;
  /** Σ input_tokens and Σ cached_tokens of ok requests whose usage reported cached tokens. */
  prompt_tokens: number;
  cached_tokens: number;
  /** cached_tokens / prompt_tokens over those requests: the share of this user's prompt the server's prefix cache served; null when no request reported cached tokens. */
  cached_token_rate: number | null;
  /** Ok requests whose usage reported cached tokens (prompt_tokens_details.cached_tokens). */
  cached_reported: number;
  /** TTFT of ok requests, ms: median and mean (null without ok requests). */
  ttft_p50_ms: number | null;
  ttft_mean_ms: number | null;
  /** Users pooled in this row: 1, or the number of users in "others". */
  users: number;
}

export interface ByUserSummary {
  /** Distinct users with measured requests. */
  users: number;
  /** The top TOP_USERS users by requests (ties by name), then "others" when there are more. */
  rows: Record<string, UserRow>;
}

class Acc {
  requests = 0;
  ok = 0;
  failed = 0;
  cancelled = 0;
  prompt = 0;
  cached = 0;
  reported = 0;
  readonly ttft: number[] = [];
  add(r: RequestRecord): void {
    this.requests++;
    if (r.status === 'cancelled') this.cancelled++;
    else if (r.status !== 'ok') this.failed++;
    if (r.status !== 'ok') return;
    this.ok++;
    if (r.ttft_ms !== null) this.ttft.push(r.ttft_ms);
    if (typeof r.cached_tokens === 'number') {
      this.reported++;
      this.cached += r.cached_tokens;
      this.prompt += r.input_tokens ?? 0;
    }
  }
  merge(o: Acc): void {
    this.requests += o.requests;
    this.ok += o.ok;
    this.failed += o.failed;
    this.cancelled += o.cancelled;
    this.prompt += o.prompt;
    this.cached += o.cached;
    this.reported += o.reported;
    for (const t of o.ttft) this.ttft.push(t);
  }
  row(users: number): UserRow {
    const denom = this.requests - this.cancelled;
    const sorted = Float64Array.from(this.ttft).sort();
    return {
      requests: this.requests,
      ok: this.ok,
      error_rate: denom > 0 ? this.failed / denom : 0,
      prompt_tokens: this.prompt,
      cached_tokens: this.cached,
      cached_token_rate: this.reported > 0 && this.prompt > 0 ? this.cached / this.prompt : null,
      cached_reported: this.reported,
      ttft_p50_ms: sorted.length ? percentile(sorted, 50) : null,
      ttft_mean_ms: sorted.length ? sorted.reduce((a, b) => a + b, 0) / sorted.length : null,
      users,
    };
  }
}

/** The user a record belongs to: the data's `user_id`, else the user-centric executor's user as "user-N". */
const userKey = (r: RequestRecord): string | undefined => r.user_id ?? (r.user !== undefined ? `user-${r.user}` : undefined);

/** Per-user accumulators of measured records (warmup left out); the summary is written only when records name users. */
export class UserCacheAggregator {
  private readonly users = new Map<string, Acc>();
  add(r: RequestRecord): void {
    if (r.warmup) return;
    const k = userKey(r);
    if (k === undefined) return;
    let a = this.users.get(k);
    if (!a) this.users.set(k, (a = new Acc()));
    a.add(r);
  }
  summary(top = TOP_USERS): ByUserSummary | undefined {
    if (this.users.size === 0) return undefined;
    const ranked = [...this.users.entries()].sort(([ka, a], [kb, b]) => b.requests - a.requests || (ka < kb ? -1 : ka > kb ? 1 : 0));
    const rows: Record<string, UserRow> = {};
    for (const [k, a] of ranked.slice(0, top)) rows[k] = a.row(1);
    const rest = ranked.slice(top);
    if (rest.length) {
      const pooled = new Acc();
      for (const [, a] of rest) pooled.merge(a);
      rows.others = pooled.row(rest.length);
    }
    return { users: this.users.size, rows };
  }
}
