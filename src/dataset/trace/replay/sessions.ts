// Session trace replay: each session turn by turn, subagents spawned and joined, think and tool waits; --sessions N closed loop.
import { withinModelLen } from './limits.js';
import type { RequestSpec } from '../../types.js';
import type { CompletedRequest, Workload } from '../../workload-types.js';
import type { DueItem, DynamicSchedule } from '../../../scheduler/executors/types.js';
import type { TraceRequest } from '../model.js';
import type { TraceReplayContext } from './context.js';
import { traceSpec } from '../spec.js';
import { createCeilingCounter } from '../ceiling.js';
import { planSessions, type SessionPlan, type SubagentPlan } from './session-plan.js';
import { turnWait, type SessionTimingOptions } from './session-timing.js';
import { DueHeap } from './due-heap.js';

/** One agent (the main one or a subagent) of a session being replayed. */
interface AgentRun {
  session: SessionRun;
  agent?: string;
  turns: TraceRequest[];
  /** Position of the next turn to make due. */
  next: number;
  /** The text sent last (live answers build on it) and the turn it was. */
  lastText?: string;
  lastReq?: TraceRequest;
  /** The last turn's answer ended the chain of live prompts (warmup, failure): the next turn sends its recorded prompt. */
  liveBroken: boolean;
}

interface SessionRun {
  plan: SessionPlan;
  id: string;
  pass: number;
  main: AgentRun;
  /** Agents still to finish (main and subagents once spawned, plus those not yet spawned). */
  open: number;
  /** Subagents still running per join turn, and the join turn held until they finish. */
  joins: Map<number, { left: number; held?: Item; lastEndMs: number }>;
}

/** A request made due: what it is and when. */
interface Item extends DueItem {
  seq: number;
  agent: AgentRun;
  req: TraceRequest;
  toolWaitMs?: number;
  joinWaitMs?: number;
  /** The --start-at-fraction warmup (max_tokens 1, then the session's first measured turn). */
  startWarmup?: boolean;
}

export function createSessionTraceWorkload(ctx: TraceReplayContext): Workload {
  const { c } = ctx;
  // Sessions interleave in a trace: it is read whole (and checked: a bad record fails here, before anything is sent).
  const all = [ctx.first, ...{ [Symbol.iterator]: () => ctx.rest }];
  const summary = ctx.trace.finish();
  const planned = planSessions(all, c.startAtFraction);
  const plans = planned.plans;
  const timing: SessionTimingOptions = { thinkTime: c.thinkTime, speed: c.replaySpeed, maxIdleGapS: c.maxIdleGap };
  const closed = c.sessions;
  const origin = plans.reduce((m, p) => Math.min(m, p.firstAtMs), Infinity);
  const heap = new DueHeap<Item>();
  const byIndex = new Map<number, Item>();
  const bySpec = new Map<RequestSpec, Item>();
  const ceilings = new Map<number, ReturnType<typeof createCeilingCounter>>();
  let seq = 0;
  let now: () => number = () => 0;
  let notify = (): void => {};
  let openSessions = 0;
  let cursor = 0;
  let pass = 0;
  const info: Record<string, unknown> = {
    kind: 'replay',
    file: ctx.path,
    format: summary.kind,
    ...(summary.detected ? { detected: summary.detected } : {}),
    replay: closed !== undefined ? 'sessions-closed-loop' : 'sessions',
    block_size: ctx.blockSize,
    requests: summary.requests,
    sessions: plans.length,
    turns: planned.turns,
    subagents: planned.subagents,
    ...(closed !== undefined ? { sessions_in_flight: closed } : {}),
    replay_speed: c.replaySpeed,
    think_time: c.thinkTime === 0 ? 'recorded' : c.thinkTime,
    max_idle_gap_s: c.maxIdleGap ?? null,
    session_answers: c.sessionAnswers,
    start_at_fraction: c.startAtFraction,
    ...(c.startAtFraction > 0 ? { warmup_requests: plans.filter((p) => p.warmup).length, skipped_turns: planned.skippedTurns, skipped_subagents: planned.skippedSubagents } : {}),
    ...(c.maxModelLen !== undefined ? { max_model_len: c.maxModelLen, skipped_over_max_model_len: 0 } : {}),
    skipped_bad_records: summary.skippedBadRecords,
    dropped_subagents: summary.droppedSubagents,
    sessions_started: 0,
    passes: 1,
    warnings: summary.warnings,
  };

  const overLimit = (req: TraceRequest): boolean => !withinModelLen(req, c);
  const push = (agent: AgentRun, req: TraceRequest, atMs: number, extra: Partial<Item> = {}): void => {
    if (!extra.startWarmup && overLimit(req)) {
      // Over --max-model-len: not sent, counted; the session goes on as if the turn had taken no time.
      info.skipped_over_max_model_len = ((info.skipped_over_max_model_len as number) ?? 0) + 1;
      advance(agent, req, atMs, atMs);
      return;
    }
    heap.push({ atMs, warmup: false, seq: seq++, agent, req, ...extra });
    notify();
  };
  const agentRun = (session: SessionRun, turns: TraceRequest[], agent?: string): AgentRun => ({ session, turns, next: 0, liveBroken: false, ...(agent !== undefined ? { agent } : {}) });

  /** Start session `plan` (pass `p`) at `atMs`: its warmup, else its first main turn (or first subagent, when the start cut every main turn). */
  const startSession = (plan: SessionPlan, p: number, atMs: number): void => {
    const s: SessionRun = { plan, id: p > 0 ? `${plan.id}#${p}` : plan.id, pass: p, main: undefined as unknown as AgentRun, open: 1 + plan.subagents.length, joins: new Map() };
    s.main = agentRun(s, plan.main);
    for (const a of plan.subagents) if (a.joinTurn !== undefined) {
      const j = s.joins.get(a.joinTurn) ?? { left: 0, lastEndMs: 0 };
      j.left++;
      s.joins.set(a.joinTurn, j);
    }
    openSessions++;
    info.sessions_started = (info.sessions_started as number) + 1;
    if (plan.warmup) push(s.main, plan.warmup, atMs, { warmup: true, startWarmup: true });
    else if (plan.main.length) {
      s.main.next = 1;
      push(s.main, plan.main[0], atMs);
    } else {
      s.open--; // no main turn left: the subagents spawned at or after the start turn run now
      for (const a of plan.subagents) spawn(s, a, undefined, atMs, atMs);
    }
  };

  /** Closed loop: the next session in trace order, a new pass (ids `<id>#<n>`, new cache-bust marker) when the trace ran out. */
  const startNext = (atMs: number): void => {
    if (cursor >= plans.length) {
      cursor = 0;
      pass++;
      info.passes = pass + 1;
    }
    startSession(plans[cursor++], pass, atMs);
  };

  const spawn = (s: SessionRun, a: SubagentPlan, parent: TraceRequest | undefined, sentMs: number, endMs: number): void => {
    const run = agentRun(s, a.turns, a.agent);
    run.next = 1;
    const w = parent ? turnWait(parent, a.turns[0], sentMs, endMs, timing) : { toolMs: 0, thinkMs: 0 };
    push(run, a.turns[0], endMs + w.toolMs + w.thinkMs, parent?.toolMs !== undefined ? { toolWaitMs: w.toolMs } : {});
  };

  const agentDone = (a: AgentRun, endMs: number): void => {
    const s = a.session;
    const sub = a.agent !== undefined ? s.plan.subagents.find((x) => x.agent === a.agent) : undefined;
    if (sub?.joinTurn !== undefined) {
      const j = s.joins.get(sub.joinTurn)!;
      j.left--;
      j.lastEndMs = Math.max(j.lastEndMs, endMs);
      if (j.left === 0 && j.held) release(j.held, j.lastEndMs);
    }
    if (--s.open === 0) {
      openSessions--;
      if (closed !== undefined) startNext(now());
      else notify();
    }
  };

  /** A join turn whose subagents finished at `doneMs`: due then, or at its own time if later; the wait is its join_wait_ms. */
  const release = (held: Item, doneMs: number): void => {
    const at = Math.max(held.atMs, doneMs);
    push(held.agent, held.req, at, { ...(held.toolWaitMs !== undefined ? { toolWaitMs: held.toolWaitMs } : {}), joinWaitMs: Math.round((at - held.atMs) * 1000) / 1000 });
  };

  /** The agent's turn `prev` ended: its subagents spawn, and its next turn is due (or held for a join). */
  const advance = (a: AgentRun, prev: TraceRequest, sentMs: number, endMs: number): void => {
    const s = a.session;
    if (a.agent === undefined) for (const sub of s.plan.subagents) if (sub.afterTurn === prev.turn) spawn(s, sub, prev, sentMs, endMs);
    if (a.next >= a.turns.length) return agentDone(a, endMs);
    const req = a.turns[a.next++];
    const w = turnWait(prev, req, sentMs, endMs, timing);
    const item: Item = { atMs: endMs + w.toolMs + w.thinkMs, warmup: false, seq: seq++, agent: a, req, ...(prev.toolMs !== undefined ? { toolWaitMs: w.toolMs } : {}) };
    const j = a.agent === undefined ? s.joins.get(req.turn) : undefined;
    if (j && j.left > 0) j.held = item;
    else if (j) release(item, j.lastEndMs);
    else push(a, req, item.atMs, item.toolWaitMs !== undefined ? { toolWaitMs: item.toolWaitMs } : {});
  };

  const ceilingOf = (p: number) => {
    let f = ceilings.get(p);
    if (!f) ceilings.set(p, (f = createCeilingCounter(ctx.blockSize)));
    return f;
  };

  /** Live answers: the prior prompt + the server's answer + the turn's tokens past the prior prompt and recorded output. */
  const liveText = (a: AgentRun, req: TraceRequest, answer: string | undefined): string | undefined => {
    const prev = a.lastReq;
    if (c.sessionAnswers !== 'live' || a.liveBroken || !prev || a.lastText === undefined || answer === undefined) return undefined;
    const from = prev.inputLength + prev.outputLength;
    if (req.inputLength < prev.inputLength) return undefined; // the context was cut (compaction): the recorded prompt
    const synth = ctx.synth(a.session.pass);
    const tail = from < req.inputLength ? ctx.tok.decode(synth.tokens({ index: req.index, inputLength: req.inputLength, hashIds: req.hashIds }).slice(from)) : '';
    return a.lastText + answer + tail;
  };
  const answers = new WeakMap<AgentRun, string>();

  const schedule: DynamicSchedule = {
    begin(n, wake) {
      now = n;
      notify = wake;
      const t0 = n();
      if (closed !== undefined) for (let k = 0; k < closed; k++) startNext(t0);
      else for (const p of plans) startSession(p, 0, t0 + (p.firstAtMs - origin) / c.replaySpeed);
    },
    peek: () => heap.peek(),
    take(index) {
      const it = heap.pop();
      if (it) byIndex.set(index, it);
    },
    done: () => closed === undefined && openSessions === 0 && heap.size === 0,
  };

  return {
    schedule,
    size: planned.turns,
    next(index) {
      const it = byIndex.get(index);
      if (!it) return undefined;
      byIndex.delete(index);
      const a = it.agent;
      const p = a.session.pass;
      const text = it.startWarmup ? undefined : liveText(a, it.req, answers.get(a));
      const spec = traceSpec(it.req, ctx.specOptions(p), {
        ceilingTokens: ceilingOf(c.cacheBust ? p : 0)(it.req),
        ...(it.joinWaitMs !== undefined ? { joinWaitMs: it.joinWaitMs } : {}),
        ...(it.toolWaitMs !== undefined ? { toolWaitMs: it.toolWaitMs } : {}),
        ...(text !== undefined ? { text } : {}),
        ...(it.startWarmup ? { maxTokens: 1 } : {}),
      });
      // A stand-alone request (no session in the trace) is a one-turn session of its own, without a session on its record.
      if (it.req.session !== undefined) {
        spec.sessionId = a.session.id;
        spec.turn = it.req.turn;
      }
      if (it.startWarmup) spec.class = 'warmup';
      a.lastText = spec.prompt;
      a.lastReq = it.req;
      a.liveBroken = !!it.startWarmup;
      bySpec.set(spec, it);
      return spec;
    },
    complete(done: CompletedRequest) {
      const it = bySpec.get(done.spec);
      if (!it) return;
      bySpec.delete(done.spec);
      const r = done.record;
      const endMs = now();
      const sentMs = Math.min(r.sent_at_ms, endMs);
      const a = it.agent;
      // A failed turn does not end its session (the trace's next prompts do not depend on it); a live chain restarts from the recorded prompt.
      if (!done.ok) a.liveBroken = true;
      else answers.set(a, done.answerText);
      if (it.startWarmup) {
        a.next = 0;
        const first = a.turns[a.next++];
        if (!first) return agentDone(a, endMs);
        const w = turnWait(it.req, first, sentMs, endMs, timing);
        push(a, first, endMs + w.toolMs + w.thinkMs, it.req.toolMs !== undefined ? { toolWaitMs: w.toolMs } : {});
        return;
      }
      advance(a, it.req, sentMs, endMs);
    },
    describe: () => {
      const skipped = (info.skipped_over_max_model_len as number | undefined) ?? 0;
      return skipped ? { ...info, warnings: [...summary.warnings, `${skipped} turns skipped: input + max_tokens exceeds --max-model-len ${c.maxModelLen}`] } : info;
    },
  };
}
