// The validation ladder in a run: whether this run climbs it (once per command, shard 0 only, not with --no-validate)
// and its probe request, a short fixed prompt counted by the run's tokenizer, LADDER_MAX_TOKENS out.
import type { Tokenizer } from '../dataset/tokenizer.js';
import type { RequestSpec } from '../dataset/types.js';
import { countPrompt, flatPrompt } from '../dataset/prompt.js';
import { getBackend } from '../backends/registry.js';
import { LADDER_MAX_TOKENS, type LadderResult, type LadderSkipped } from '../drivers/validate-ladder.js';
import type { Once } from '../util/once.js';
import type { Driver } from '../drivers/driver.js';
import type { RunConfig } from '../config/schema.js';
import { parseShard } from '../config/shard.js';

// Its own opening words: no workload prompt starts this way, so the ladder warms a prefix cache for its own prompt only.
const PROBE = '[tokenflood validation ladder] This is a validation request from tokenflood before a benchmark. Count from one to twenty in words, separated by commas.';

/** The chat or completions form of the probe, as the backend's endpoint takes it. */
export function ladderSpec(tok: Tokenizer, endpoint: 'chat' | 'completions'): RequestSpec {
  const messages = [{ role: 'user' as const, content: PROBE }];
  return { messages, prompt: flatPrompt(messages), inputTokens: countPrompt(tok, messages, endpoint), maxTokens: LADDER_MAX_TOKENS };
}

/** The endpoint (chat or completions) a backend's bodies take. */
export const backendEndpoint = (backend: string): 'chat' | 'completions' => getBackend(backend).endpoint;

/** Backends the ladder cannot check, and why: it judges generated text sent as a JSON body over HTTP. */
const NOT_LADDERED: Readonly<Record<string, string>> = {
  embeddings: 'no generated text to check',
  'embeddings-tei': 'no generated text to check',
  rerank: 'no generated text to check',
  'rerank-tei': 'no generated text to check',
  'openai-transcriptions': 'its requests are audio uploads',
  websocket: 'it speaks WebSocket, not HTTP',
};

/**
 * The ladder for this run, after the driver opened and before any load: climbed, or reused from an earlier run of
 * the same command (`once`: ResolvedRun.ladder, shared by every run() of one command), or skipped with the reason
 * (--no-validate, a shard other than 0, a backend it cannot judge, the virtual driver).
 * A failed step throws ValidationError (exit 4).
 */
export async function climbLadder(c: RunConfig, driver: Driver, tok: Tokenizer, backend: string, once: Once<unknown> | undefined, signal?: AbortSignal): Promise<LadderResult | LadderSkipped> {
  if (!driver.validate) return { verdict: 'skipped', reason: 'simulated: no server to check', steps: [] };
  if (!c.validate) return { verdict: 'skipped', reason: '--no-validate', steps: [] };
  if (NOT_LADDERED[backend]) return { verdict: 'skipped', reason: `--backend ${backend}: ${NOT_LADDERED[backend]}`, steps: [] };
  // A shard is one measurement of a larger run: shard 0 checks the server for all of them (docs/distributed.md).
  const shard = c.shard !== undefined ? parseShard(c.shard) : undefined;
  if (shard && shard.index > 0) return { verdict: 'skipped', reason: `shard ${shard.index}/${shard.count}: shard 0 climbs the ladder for the whole run`, steps: [] };
  const go = () => driver.validate!(ladderSpec(tok, backendEndpoint(backend)), (l) => process.stderr.write(`tokenflood: ${l}\n`), signal);
  if (!once) return go();
  // Once per command: a later run of it (--runs N, --short-baseline, a sweep point) carries the first one's result.
  const reused = once.started;
  const r = (await once.get(go)) as LadderResult;
  return reused ? { ...r, reused: true } : r;
}
