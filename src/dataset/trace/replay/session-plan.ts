// A trace's sessions as plans: each session's main-agent turns, its subagents (spawn and join turns), and a --start-at-fraction warmup.
import type { TraceRequest } from '../model.js';

/** A subagent of a session: its turns in order, spawned after parent turn `afterTurn`, joined by `joinTurn` (none: background). */
export interface SubagentPlan {
  agent: string;
  turns: TraceRequest[];
  afterTurn: number;
  joinTurn?: number;
}

/** One session as replayed: the main agent's turns (from the start-at turn on), its subagents, and the warmup before them. */
export interface SessionPlan {
  id: string;
  /** Main-agent turns to send (measured), in turn order. */
  main: TraceRequest[];
  subagents: SubagentPlan[];
  /** --start-at-fraction: the turn before the first one sent, replayed with max_tokens 1 as a warmup. */
  warmup?: TraceRequest;
  /** Recorded time of the first request sent (the warmup's, else the first turn's), ms; 0 when the trace gives none. */
  firstAtMs: number;
}

export interface PlanSummary {
  plans: SessionPlan[];
  /** Turns sent per pass (main and subagents), warmups excluded. */
  turns: number;
  subagents: number;
  /** Turns and subagents left out by --start-at-fraction (history before the start turn). */
  skippedTurns: number;
  skippedSubagents: number;
}

/**
 * Group `requests` (any order, as read) into sessions in order of first appearance. A request without a session is a
 * one-turn session `r<index>`. With `fraction` F, a session of T main turns starts at turn s = ⌊F·T⌋: turn s−1 is its
 * warmup, turns before s are left out, and so is every subagent spawned before turn s (it belongs to the history).
 */
export function planSessions(requests: Iterable<TraceRequest>, fraction: number): PlanSummary {
  const bySession = new Map<string, { main: TraceRequest[]; subs: Map<string, SubagentPlan> }>();
  for (const r of requests) {
    const id = r.session ?? `r${r.index}`;
    let s = bySession.get(id);
    if (!s) bySession.set(id, (s = { main: [], subs: new Map() }));
    if (r.agent === undefined) s.main.push(r);
    else {
      let a = s.subs.get(r.agent);
      if (!a) s.subs.set(r.agent, (a = { agent: r.agent, turns: [], afterTurn: r.spawn?.afterTurn ?? 0, ...(r.spawn?.joinTurn !== undefined ? { joinTurn: r.spawn.joinTurn } : {}) }));
      a.turns.push(r);
    }
  }
  const out: PlanSummary = { plans: [], turns: 0, subagents: 0, skippedTurns: 0, skippedSubagents: 0 };
  for (const [id, s] of bySession) {
    s.main.sort((a, b) => a.turn - b.turn);
    const start = Math.floor(fraction * s.main.length);
    const warmup = start > 0 ? s.main[start - 1] : undefined;
    const firstTurn = start > 0 ? s.main[start].turn : -Infinity;
    const subagents = [...s.subs.values()].filter((a) => a.turns.length > 0 && a.afterTurn >= firstTurn);
    for (const a of subagents) a.turns.sort((x, y) => x.turn - y.turn);
    const main = s.main.slice(start);
    if (!main.length && !subagents.length) continue;
    out.skippedTurns += start + [...s.subs.values()].filter((a) => !subagents.includes(a)).reduce((n, a) => n + a.turns.length, 0);
    out.skippedSubagents += s.subs.size - subagents.length;
    out.turns += main.length + subagents.reduce((n, a) => n + a.turns.length, 0);
    out.subagents += subagents.length;
    const first = warmup ?? main[0] ?? subagents[0].turns[0];
    out.plans.push({ id, main, subagents, ...(warmup ? { warmup } : {}), firstAtMs: first.atMs ?? 0 });
  }
  return out;
}
