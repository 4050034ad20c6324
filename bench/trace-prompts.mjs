// Speed of token-exact prompt synthesis from hash_ids over a whole trace (default: the 12,031-request Mooncake conversation
// trace), and of the re-tokenize check that proves it. Run after `npm run build`:
//   node bench/trace-prompts.mjs [TRACE] [--verify N|all] [--tokenizer NAME]
import { existsSync } from 'node:fs';
import { join, dirname, basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadTrace } from '../dist/dataset/trace/registry.js';
import { createPromptSynth } from '../dist/dataset/trace/prompts.js';
import { loadTokenizer } from '../dist/dataset/tokenizer.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const flag = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args.splice(i, 2)[1] : dflt;
};
const verifyArg = flag('--verify', '200');
const tokName = flag('--tokenizer', 'cl100k_base');
// ../shared/traces beside the checkout (or beside a worktree's parent folder).
const file = args[0] ?? [join(root, '..', 'shared'), join(root, '..', '..', 'shared')].map((d) => join(d, 'traces', 'mooncake-conversation.jsonl')).find(existsSync);
if (!file) throw new Error('no trace given and no ../shared/traces/mooncake-conversation.jsonl');

const cpu = () => process.cpuUsage();
const cpuS = (a) => {
  const d = process.cpuUsage(a);
  return (d.user + d.system) / 1e6;
};

let t0 = performance.now();
let c0 = cpu();
const trace = loadTrace(file);
const load = { wall_s: (performance.now() - t0) / 1000, cpu_s: cpuS(c0) };
const { requests, summary } = trace;
const tokens = requests.reduce((n, r) => n + r.inputLength, 0);

const tok = loadTokenizer(tokName);
t0 = performance.now();
c0 = cpu();
const synth = createPromptSynth({ tok, blockSize: summary.blockSize, seed: 1, traceId: basename(file) });
const alphabet = { wall_s: (performance.now() - t0) / 1000, words: synth.alphabet.texts.length };

// Synthesis: every prompt's text, in trace order (what a replay would send).
t0 = performance.now();
c0 = cpu();
let chars = 0;
for (const r of requests) chars += synth.text(r).length;
const wall = (performance.now() - t0) / 1000;
const synthCpu = cpuS(c0);

// The proof: re-tokenize N prompts spread over the trace (or all) and compare token by token.
const n = verifyArg === 'all' ? requests.length : Math.min(requests.length, Number(verifyArg));
const step = requests.length / n;
const picked = Array.from({ length: n }, (_, i) => requests[Math.floor(i * step)]);
t0 = performance.now();
c0 = cpu();
let verifiedTokens = 0;
const bad = [];
for (const r of picked) {
  const p = synth.verify(r);
  if (p) bad.push(`${r.source}: ${p}`);
  verifiedTokens += r.inputLength;
}
const vWall = (performance.now() - t0) / 1000;
const vCpu = cpuS(c0);

const span = requests.length ? (Math.max(...requests.map((r) => r.atMs ?? 0)) - Math.min(...requests.map((r) => r.atMs ?? 0))) / 1000 : 0;
console.log(JSON.stringify({
  file,
  tokenizer: tok.name,
  requests: requests.length,
  prompt_tokens: tokens,
  load,
  alphabet,
  synthesis: {
    wall_s: wall,
    cpu_s: synthCpu,
    requests_per_s: requests.length / wall,
    tokens_per_s: tokens / wall,
    chars,
    // The trace's own pace at --replay-speed 10, for comparison.
    needed_at_speed_10_requests_per_s: span ? (requests.length / span) * 10 : null,
  },
  verify: { prompts: picked.length, tokens: verifiedTokens, wall_s: vWall, cpu_s: vCpu, tokens_per_s: verifiedTokens / vWall, failures: bad.length, first_failures: bad.slice(0, 5) },
}, null, 2));
if (bad.length) process.exitCode = 1;
