// The terminal summary's lines for the client's own load shape: its planned cancels and the user-centric executor.
import type { Summary } from '../metrics/summary-model.js';
import { fmt, pct } from './format.js';

/** "cancelled by the client: 8 of 8 (100%), 224 ms after send on average (max 240); ..." or nothing. */
export function cancellationLines(s: Pick<Summary, 'cancellation'>): string[] {
  const c = s.cancellation;
  if (!c) return [];
  return [
    `cancelled by the client (--cancel-after/--cancel-rate): ${c.cancelled} (${pct(c.rate)}), ${fmt(c.cancel_after_ms.mean)} ms after send on average (max ${fmt(c.cancel_after_ms.max)}); ` +
      `${c.with_first_token} had received tokens, ${fmt(c.tokens_received.mean)} each on average; left out of the latency figures`,
  ];
}

/** "users: 4 × 2 req/s = 8 req/s intended, 7.95 achieved; 6 requests per user (6–6), sends ≥ 500 ms apart" or nothing. */
export function usersLines(s: Pick<Summary, 'users' | 'run'>): string[] {
  const u = s.users;
  if (!u) return [];
  const cfg = (s.run.config ?? {}) as Record<string, unknown>;
  const per = cfg.userRate ?? cfg.user_rate;
  const intended = u.target_rate !== null ? `${fmt(u.target_rate)} req/s intended (${u.users} users × ${String(per)} req/s)` : `${u.users} users`;
  return [
    `users: ${intended}, ${u.achieved_rate === null ? '-' : fmt(u.achieved_rate)} req/s achieved; ${fmt(u.requests_per_user.mean)} requests per user (${u.requests_per_user.min}–${u.requests_per_user.max})` +
      (u.send_gap_ms ? `, a user's sends ${fmt(u.send_gap_ms.min)} ms apart at least (mean ${fmt(u.send_gap_ms.mean)})` : ''),
  ];
}
