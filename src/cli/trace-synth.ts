// `tokenflood trace synth --sessions N ... --out FILE|DIR`: write a synthetic agentic trace in the Weka shape.
import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { synthSpec, SYNTH_DEFAULTS, type SynthFlags } from '../dataset/trace/synth-options.js';
import { emptySummary, synthSessions } from '../dataset/trace/synth.js';
import { outProblem, writeSynthTrace } from '../dataset/trace/synth-write.js';
import type { Out } from './io.js';

interface SynthCliOptions extends SynthFlags {
  out?: string;
  force?: boolean;
  json?: boolean;
}

const D = SYNTH_DEFAULTS;

export function registerTraceSynth(trace: Command, out: Out): void {
  const dist = 'N or a distribution: uniform:MIN,MAX, normal:MEAN,SD, lognormal:MEAN,SD, exponential:MEAN, each with optional ,min=,max=';
  const synth = trace
    .command('synth')
    .description('write a synthetic agentic trace (Weka session files: turns, growing context, shared system prompt, think and tool time, subagents) from stated distributions')
    .option('--out <path>', 'where to write: a directory of session files, or FILE.json with --sessions 1 (required)')
    .option('--sessions <n>', 'sessions to write', D.sessions)
    .option('--turns <dist>', `main-agent turns per session; ${dist}`, D.turns)
    .option('--system-tokens <n>', 'system prompt every session and subagent starts with; its full blocks have the same hash ids everywhere (0 = none)', D.systemTokens)
    .option('--first-tokens <dist>', 'first user message of a session (a subagent\'s task), after the system prompt', D.firstTokens)
    .option('--new-tokens <dist>', 'tokens a later turn adds after the previous answer (user message, tool result): its context growth beyond that answer', D.newTokens)
    .option('--output-tokens <dist>', 'answer length (out) of every request', D.outputTokens)
    .option('--think-ms <dist>', 'think time before a later turn, ms; 0 = none', D.thinkMs)
    .option('--tool-ms <dist>', 'tool time before a later turn, ms, added to think_time (Weka has one gap field); 0 = none', D.toolMs)
    .option('--subagent-probability <p>', 'chance that a main turn spawns subagents after its answer (0..1)', D.subagentProbability)
    .option('--subagent-fanout <dist>', 'subagents a spawning turn starts', D.subagentFanout)
    .option('--subagent-turns <dist>', 'turns of each subagent', D.subagentTurns)
    .option('--rate <r>', 'session arrivals per second (Poisson); 0 = every session starts at t = 0', D.rate)
    .option('--ms-per-token <ms>', 'nominal decode time per output token, used only to place send times t', D.msPerToken)
    .option('--trace-block-size <n>', 'tokens per hash id (block_size)', D.traceBlockSize)
    .option('--model <name>', 'model named in every request', D.model)
    .option('--seed <n>', 'random seed: the same flags and seed write the same trace', D.seed)
    .option('--force', 'replace an existing --out (a file, or a directory holding only *.json session files)')
    .option('--json', 'print a summary of what was written as one JSON document');
  synth.action(() => {
    const o = synth.opts() as SynthCliOptions;
    const { spec, problems } = synthSpec(o);
    if (!o.out) problems.unshift('--out: required (a directory, or FILE.json with --sessions 1)');
    else if (spec) {
      const p = outProblem(o.out, spec.sessions, !!o.force);
      if (p) problems.push(p);
    }
    if (problems.length || !spec || !o.out) throw new UsageError(problems);
    const summary = emptySummary(spec);
    const files = writeSynthTrace(o.out, synthSessions(spec, summary), spec.sessions, !!o.force);
    if (o.json) out.out.write(JSON.stringify({ out: o.out, format: 'weka', files: files.length, ...summary }, null, 2) + '\n');
    else
      out.out.write(
        `${o.out}: ${summary.sessions} sessions, ${summary.requests} requests (${summary.subagents} subagents, ${summary.subagent_requests} of their requests), ` +
          `${summary.prompt_tokens} prompt tokens, ${summary.shared_prefix_blocks} shared system-prompt blocks of ${summary.block_size} tokens, last send at ${summary.span_s.toFixed(1)} s\n` +
          `inspect it: tokenflood trace stats ${o.out}\n`,
      );
  });
}
