// Sessions and turns: latency by turn index, per-session figures and prefix reuse against the trace's cache ceiling.
import type { DistStats, Percentiles } from './stats.js';
import { distStatsCi } from './ci95.js';
import type { RequestRecord } from './record.js';
import { SESSION_WAIT_METRICS, TURN_METRICS, type MetricDef } from './registry/index.js';

/** Turn indexes from this one on share one row, `16+`, so the table stays short for long sessions (docs/metrics.md#sessions-and-turns). */
export const TURN_POOL_FROM = 16;

/** The by_turn key of a 0-based turn index: "0" … "15", then "16+". */
export const turnKey = (turn: number): string => (turn >= TURN_POOL_FROM ? `${TURN_POOL_FROM}+` : String(turn));

/** One turn index's figures: measured requests, the ok ones, and TTFT/TPOT/E2E of the ok ones (the registry's TURN_METRICS). */
export interface TurnBlock {
  requests: number;
  ok: number;
  ttft_ms: DistStats;
  tpot_ms: DistStats;
  e2e_ms: DistStats;
}

/** A wait (join or tool): its sum over the measured requests that carry it, and its distribution over them. */
export interface WaitStats {
  total_ms: number;
  per_request: DistStats;
}

/** summary.json `sessions`: present when records carry `session`. */
export interface SessionsSummary {
  /** Distinct sessions with a measured request. */
  count: number;
  /** Per session: last response end − first send, ms, over its measured requests. */
  duration_ms: DistStats;
  /** Per session: main-agent turns sent (first attempts of records without `agent`). */
  turns: DistStats;
  /** Per session: requests sent, subagents' included (first attempts). */
  requests: DistStats;
  /** Distinct (session, agent) pairs with an agent, and the sessions that had one. */
  subagents: number;
  sessions_with_subagents: number;
  join_wait_ms: WaitStats;
  tool_wait_ms: WaitStats;
}

/** Prompt tokens, the cache ceiling and the server's cached tokens, summed over measured ok records that carry ceiling_tokens. */
export interface ReuseBlock {
  requests: number;
  prompt_tokens: number;
  ceiling_tokens: number;
  /** Σ cached_tokens (a record whose server did not say counts 0; `cached_reported` says how many did). */
  cached_tokens: number;
  cached_reported: number;
  /** ceiling_tokens / prompt_tokens: what an unlimited cache could serve; null without prompt tokens. */
  ceiling_share: number | null;
  /** cached_tokens / prompt_tokens; null without prompt tokens. */
  cached_share: number | null;
  /** cached_tokens / ceiling_tokens: how much of the reachable reuse the server achieved; null when the ceiling is 0 or no server reported cached tokens. */
  cached_vs_ceiling: number | null;
}

/** summary.json `prefix_reuse`: present when records carry `ceiling_tokens` (trace replay). */
export interface PrefixReuseSummary extends ReuseBlock {
  by_turn: Record<string, ReuseBlock>;
}

export interface SessionFigures {
  by_turn?: Record<string, TurnBlock>;
  sessions?: SessionsSummary;
  prefix_reuse?: PrefixReuseSummary;
}

class Values {
  private readonly v: number[] = [];
  add(x: number): void {
    this.v.push(x);
  }
  stats(ps: Percentiles): DistStats {
    return distStatsCi(this.v, ps);
  }
}

class TurnAcc {
  requests = 0;
  ok = 0;
  readonly cols = TURN_METRICS.map(() => new Values());
}

class ReuseAcc {
  requests = 0;
  prompt = 0;
  ceiling = 0;
  cached = 0;
  reported = 0;
  add(r: RequestRecord): void {
    this.requests++;
    this.prompt += r.input_tokens ?? 0;
    this.ceiling += r.ceiling_tokens ?? 0;
    if (r.cached_tokens !== null) {
      this.cached += r.cached_tokens;
      this.reported++;
    }
  }
  block(): ReuseBlock {
    const share = (x: number) => (this.prompt > 0 ? x / this.prompt : null);
    return {
      requests: this.requests,
      prompt_tokens: this.prompt,
      ceiling_tokens: this.ceiling,
      cached_tokens: this.cached,
      cached_reported: this.reported,
      ceiling_share: share(this.ceiling),
      cached_share: share(this.cached),
      cached_vs_ceiling: this.ceiling > 0 && this.reported > 0 ? this.cached / this.ceiling : null,
    };
  }
}

interface SessionAcc {
  first: number;
  last: number;
  turns: number;
  requests: number;
  agents: Set<string>;
}

const sortedTurnKeys = (keys: Iterable<string>): string[] => [...keys].sort((a, b) => parseInt(a, 10) - parseInt(b, 10));

/** Collects the measured (non-warmup) records of a run; the result does not depend on the order they arrive in. */
export class SessionAggregator {
  private readonly turns = new Map<string, TurnAcc>();
  private readonly sessions = new Map<string, SessionAcc>();
  private readonly waits = SESSION_WAIT_METRICS.map(() => ({ total: 0, values: new Values() }));
  private reuse: ReuseAcc | undefined;
  private readonly reuseByTurn = new Map<string, ReuseAcc>();

  add(r: RequestRecord): void {
    if (r.warmup) return;
    if (r.turn !== undefined) this.addTurn(r, r.turn);
    if (r.session !== undefined) this.addSession(r, r.session);
    if (r.ceiling_tokens !== undefined && r.status === 'ok') {
      (this.reuse ??= new ReuseAcc()).add(r);
      if (r.turn !== undefined) {
        const k = turnKey(r.turn);
        let a = this.reuseByTurn.get(k);
        if (!a) this.reuseByTurn.set(k, (a = new ReuseAcc()));
        a.add(r);
      }
    }
  }

  private addTurn(r: RequestRecord, turn: number): void {
    const k = turnKey(turn);
    let t = this.turns.get(k);
    if (!t) this.turns.set(k, (t = new TurnAcc()));
    t.requests++;
    if (r.status !== 'ok') return;
    t.ok++;
    TURN_METRICS.forEach((d, i) => put(d, r, t.cols[i]));
  }

  private addSession(r: RequestRecord, id: string): void {
    const end = r.sent_at_ms + (r.end_ms ?? 0);
    let s = this.sessions.get(id);
    if (!s) this.sessions.set(id, (s = { first: r.sent_at_ms, last: end, turns: 0, requests: 0, agents: new Set() }));
    s.first = Math.min(s.first, r.sent_at_ms);
    s.last = Math.max(s.last, end);
    if (r.agent !== undefined) s.agents.add(r.agent);
    if (r.attempt <= 1) {
      s.requests++;
      if (r.agent === undefined) s.turns++;
    }
    SESSION_WAIT_METRICS.forEach((d, i) => {
      const v = d.of(r);
      if (typeof v !== 'number' || r.attempt > 1) return;
      this.waits[i].total += v;
      this.waits[i].values.add(v);
    });
  }

  /**
   * by_turn when records carry `turn`, sessions when they carry `session`, prefix_reuse when they carry
   * `ceiling_tokens` (formulas: docs/metrics.md#sessions-and-turns). Distributions carry `ps`.
   */
  summary(ps: Percentiles): SessionFigures {
    const out: SessionFigures = {};
    if (this.turns.size > 0) {
      out.by_turn = {};
      for (const k of sortedTurnKeys(this.turns.keys())) {
        const t = this.turns.get(k)!;
        const [ttft_ms, tpot_ms, e2e_ms] = t.cols.map((c) => c.stats(ps));
        out.by_turn[k] = { requests: t.requests, ok: t.ok, ttft_ms, tpot_ms, e2e_ms };
      }
    }
    if (this.sessions.size > 0) out.sessions = this.sessionsSummary(ps);
    if (this.reuse) {
      const by_turn: Record<string, ReuseBlock> = {};
      for (const k of sortedTurnKeys(this.reuseByTurn.keys())) by_turn[k] = this.reuseByTurn.get(k)!.block();
      out.prefix_reuse = { ...this.reuse.block(), by_turn };
    }
    return out;
  }

  private sessionsSummary(ps: Percentiles): SessionsSummary {
    const duration = new Values();
    const turns = new Values();
    const requests = new Values();
    let subagents = 0;
    let withSub = 0;
    for (const s of this.sessions.values()) {
      duration.add(Math.max(0, s.last - s.first));
      turns.add(s.turns);
      requests.add(s.requests);
      subagents += s.agents.size;
      if (s.agents.size > 0) withSub++;
    }
    const [join, tool] = this.waits.map((w) => ({ total_ms: w.total, per_request: w.values.stats(ps) }));
    return {
      count: this.sessions.size,
      duration_ms: duration.stats(ps),
      turns: turns.stats(ps),
      requests: requests.stats(ps),
      subagents,
      sessions_with_subagents: withSub,
      join_wait_ms: join,
      tool_wait_ms: tool,
    };
  }
}

/** `def`'s value(s) of `r` into `col` (null: none). */
function put(def: MetricDef, r: RequestRecord, col: Values): void {
  const v = def.of(r);
  if (typeof v === 'number') col.add(v);
  else if (v !== null) for (const x of v) col.add(x);
}
