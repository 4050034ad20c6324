// `trace synth`: a synthetic agentic trace in the Weka shape (one session object each) from stated distributions, seeded.
import { sampleLength, type LengthDist } from '../distribution.js';
import { createRng, type Rng } from '../../util/rng.js';

/** What a synthetic trace is drawn from. Lengths are tokens, times ms (written as seconds, as Weka has them). */
export interface SynthSpec {
  sessions: number;
  /** Main-agent turns per session. */
  turns: LengthDist;
  /** The system prompt every session (and subagent) starts with: its full blocks have the same hash ids everywhere. */
  systemTokens: number;
  /** The first user message of a session (or a subagent's task), after the system prompt. */
  firstTokens: LengthDist;
  /** Tokens a later turn adds after the previous answer (user message, tool result). */
  newTokens: LengthDist;
  outputTokens: LengthDist;
  /** Think time before a later turn; null = none. */
  thinkMs: LengthDist | null;
  /** Tool time before a later turn (the previous answer called a tool); null = none. Folded into think_time. */
  toolMs: LengthDist | null;
  /** Chance that a main turn spawns subagents (after its answer). */
  subagentProbability: number;
  subagentFanout: LengthDist;
  subagentTurns: LengthDist;
  /** Session arrivals per second (Poisson); 0 = every session starts at t = 0. */
  ratePerS: number;
  /** Nominal decode time per output token, used only to place send times. */
  msPerToken: number;
  blockSize: number;
  model: string;
  seed: number;
}

/** One request of a Weka session file. */
export interface WekaRequest {
  t: number;
  type: 'n' | 's';
  model: string;
  in: number;
  out: number;
  hash_ids: number[];
  think_time?: number;
}
export interface WekaSubagent {
  type: 'subagent';
  agent_id: string;
  t: number;
  requests: WekaRequest[];
}
export interface WekaSession {
  id: string;
  block_size: number;
  /** tokenflood's extension: hash ids are one namespace across the trace's files (the shared system prompt). */
  hash_id_scope: 'trace';
  requests: (WekaRequest | WekaSubagent)[];
}

/**
 * A growing context: `len` tokens whose full blocks have `fullIds`. A prompt of len tokens lists those ids plus a fresh
 * id for the partial last block; appending tokens fills that block (new content, so a new id) and adds fresh blocks.
 */
interface Context {
  len: number;
  fullIds: number[];
}

const seconds = (ms: number): number => Math.round(ms) / 1000;

export class TraceSynth {
  private nextId: number;
  private readonly sharedIds: number[];

  constructor(private readonly spec: SynthSpec) {
    const shared = Math.floor(spec.systemTokens / spec.blockSize);
    this.sharedIds = Array.from({ length: shared }, (_, i) => i);
    this.nextId = shared;
  }

  /** Hash ids of the shared system prompt's full blocks (the same in every session). */
  get sharedBlocks(): number {
    return this.sharedIds.length;
  }

  private append(c: Context, tokens: number): void {
    const len = c.len + tokens;
    while (c.fullIds.length < Math.floor(len / this.spec.blockSize)) c.fullIds.push(this.nextId++);
    c.len = len;
  }

  private prompt(c: Context): number[] {
    return c.len % this.spec.blockSize ? [...c.fullIds, this.nextId++] : [...c.fullIds];
  }

  /** A streaming request (Weka type "s"; "n" is a non-streaming one). */
  private request(c: Context, atMs: number, out: number, gapMs?: number): WekaRequest {
    return { t: seconds(atMs), type: 's', model: this.spec.model, in: c.len, out, hash_ids: this.prompt(c), ...(gapMs !== undefined ? { think_time: seconds(gapMs) } : {}) };
  }

  /** Think plus tool time before a later turn, ms. */
  private gap(rng: Rng): number {
    const { thinkMs, toolMs } = this.spec;
    return (thinkMs ? sampleLength(thinkMs, rng) : 0) + (toolMs ? sampleLength(toolMs, rng) : 0);
  }

  private fresh(): Context {
    return { len: this.spec.systemTokens, fullIds: [...this.sharedIds] };
  }

  /** A subagent starting at `startMs`: its own context from the system prompt; returns it and when its last answer ends. */
  private subagent(agentId: string, startMs: number, rng: Rng): { sub: WekaSubagent; endMs: number; lastOut: number } {
    const s = this.spec;
    const c = this.fresh();
    this.append(c, sampleLength(s.firstTokens, rng));
    const n = sampleLength(s.subagentTurns, rng);
    const requests: WekaRequest[] = [];
    let at = startMs;
    let out = 0;
    for (let j = 0; j < n; j++) {
      let gap: number | undefined;
      if (j > 0) {
        gap = this.gap(rng);
        at += out * s.msPerToken + gap;
        this.append(c, out + sampleLength(s.newTokens, rng));
      }
      out = sampleLength(s.outputTokens, rng);
      requests.push(this.request(c, at, out, gap));
    }
    return { sub: { type: 'subagent', agent_id: agentId, t: seconds(startMs), requests }, endMs: at + out * s.msPerToken, lastOut: out };
  }

  /** Session i starting at `startMs`. */
  session(i: number, startMs: number, rng: Rng): WekaSession {
    const s = this.spec;
    const c = this.fresh();
    const turns = sampleLength(s.turns, rng);
    const requests: (WekaRequest | WekaSubagent)[] = [];
    let at = startMs;
    let out = 0;
    let joined = { endMs: 0, tokens: 0 };
    let agents = 0;
    for (let k = 0; k < turns; k++) {
      let gap: number | undefined;
      if (k === 0) this.append(c, sampleLength(s.firstTokens, rng));
      else {
        gap = this.gap(rng);
        // The turn leaves after its answer, its subagents' answers (join) and the gap; it carries their outputs.
        at = Math.max(at + out * s.msPerToken, joined.endMs) + gap;
        this.append(c, out + joined.tokens + sampleLength(s.newTokens, rng));
      }
      out = sampleLength(s.outputTokens, rng);
      requests.push(this.request(c, at, out, gap));
      joined = { endMs: 0, tokens: 0 };
      if (rng.next() < s.subagentProbability) {
        const fan = sampleLength(s.subagentFanout, rng);
        for (let f = 0; f < fan; f++) {
          const { sub, endMs, lastOut } = this.subagent(`sub-${agents++}`, at + out * s.msPerToken, rng);
          requests.push(sub);
          joined = { endMs: Math.max(joined.endMs, endMs), tokens: joined.tokens + lastOut };
        }
      }
    }
    return { id: `synth-${String(i).padStart(5, '0')}`, block_size: s.blockSize, hash_id_scope: 'trace', requests };
  }
}

/** What was drawn, for `--json` and the terminal line. */
export interface SynthSummary {
  sessions: number;
  requests: number;
  main_requests: number;
  subagents: number;
  subagent_requests: number;
  prompt_tokens: number;
  output_tokens: number;
  block_size: number;
  shared_prefix_tokens: number;
  shared_prefix_blocks: number;
  /** Last send time of the trace, s. */
  span_s: number;
  seed: number;
}

/**
 * The sessions of the trace in arrival order, drawn one at a time (memory stays one session), counted into `summary`
 * as they are yielded. Deterministic in the spec (seed included).
 */
export function* synthSessions(spec: SynthSpec, summary: SynthSummary): Generator<WekaSession> {
  const rng = createRng(spec.seed);
  const arrivals = rng.fork();
  const synth = new TraceSynth(spec);
  summary.shared_prefix_blocks = synth.sharedBlocks;
  summary.shared_prefix_tokens = synth.sharedBlocks * spec.blockSize;
  let start = 0;
  const count = (r: WekaRequest): void => {
    summary.requests++;
    summary.prompt_tokens += r.in;
    summary.output_tokens += r.out;
    summary.span_s = Math.max(summary.span_s, r.t);
  };
  for (let i = 0; i < spec.sessions; i++) {
    if (i > 0 && spec.ratePerS > 0) start += arrivals.exponential(1000 / spec.ratePerS);
    const s = synth.session(i, start, rng.fork());
    for (const r of s.requests) {
      if (r.type === 'subagent') {
        summary.subagents++;
        summary.subagent_requests += r.requests.length;
        r.requests.forEach(count);
      } else {
        summary.main_requests++;
        count(r);
      }
    }
    yield s;
  }
}

/** An empty summary for `spec`, filled in by synthSessions. */
export const emptySummary = (spec: SynthSpec): SynthSummary => ({
  sessions: spec.sessions, requests: 0, main_requests: 0, subagents: 0, subagent_requests: 0, prompt_tokens: 0, output_tokens: 0,
  block_size: spec.blockSize, shared_prefix_tokens: 0, shared_prefix_blocks: 0, span_s: 0, seed: spec.seed,
});

/** The whole trace in memory (tests, small traces). */
export function synthTrace(spec: SynthSpec): { sessions: WekaSession[]; summary: SynthSummary } {
  const summary = emptySummary(spec);
  return { sessions: [...synthSessions(spec, summary)], summary };
}
