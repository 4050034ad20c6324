// The trace formats by kind (kind → loader), `auto` detection from the first record, and loading with one error for all bad records.
import { statSync } from 'node:fs';
import { UsageError } from '../../errors.js';
import { byKind, kindsOf } from '../../util/kinds.js';
import { csvRows } from '../formats/csv.js';
import type { TraceLoader } from './loader.js';
import type { Trace, TraceLoadOptions, TraceLoadSummary, TraceRequest } from './model.js';
import { TraceProblems } from './problems.js';
import { linesOf } from './formats/files.js';
import { mooncake } from './formats/mooncake.js';
import { bailian } from './formats/bailian.js';
import { weka } from './formats/weka.js';
import { tracelab } from './formats/tracelab.js';
import { azure, burstgpt } from './formats/csv-traces.js';
import { tokenflood } from './formats/tokenflood.js';

/** Every trace format, by the name --replay-format takes. Detection tries them in this order after the specific ones. */
export const TRACE_LOADERS = { tokenflood, mooncake, bailian, weka, tracelab, burstgpt, azure } satisfies Record<string, TraceLoader>;
export type TraceKind = keyof typeof TRACE_LOADERS;
export const TRACE_FORMATS: readonly string[] = ['auto', ...kindsOf(TRACE_LOADERS)];

/** Most specific first: a Bailian row also has input_length, a tokenflood row only a timestamp. */
const DETECT_ORDER: TraceKind[] = ['weka', 'bailian', 'tracelab', 'mooncake', 'burstgpt', 'azure', 'tokenflood'];

/** The first non-blank record of a file: a JSON object, or a CSV header row. A pretty-printed JSON file (a Weka session) is read whole. */
function firstRecord(path: string): { json?: Record<string, unknown>; csvHeader?: string[]; text?: string } {
  for (const { text } of linesOf(path)) {
    const t = text.trim();
    if (!t || t.startsWith('//')) continue;
    if (t.startsWith('{')) {
      try {
        const v = JSON.parse(t) as unknown;
        if (v && typeof v === 'object' && !Array.isArray(v)) return { json: v as Record<string, unknown> };
      } catch (e) {
        // Not one object per line: a JSON document spread over lines, i.e. a session file.
        if (t === '{' || path.toLowerCase().endsWith('.json')) return { json: { requests: [] }, text: t };
        throw new UsageError([`${path}:1: record: not valid JSON (${(e as Error).message}); --replay-format names the format`]);
      }
    }
    return { csvHeader: csvRows(t)[0]?.fields.map((f) => f.trim()) ?? [], text: t };
  }
  return {};
}

/** The format of a trace file or directory, and why (a directory is a folder of Weka session files). */
export function detectTraceKind(path: string): { kind: TraceKind; reason: string } {
  let dir = false;
  try {
    dir = statSync(path).isDirectory();
  } catch (e) {
    throw new UsageError([`${path}: cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`]);
  }
  if (dir) return { kind: 'weka', reason: 'a directory of session files (Weka)' };
  const first = firstRecord(path);
  if (!first.json && !first.csvHeader) throw new UsageError([`${path}: an empty trace (no record to detect the format from; --replay-format names it)`]);
  for (const kind of DETECT_ORDER) {
    const why = TRACE_LOADERS[kind].detect(first);
    if (why) return { kind, reason: why };
  }
  throw new UsageError([
    `${path}:1: cannot tell the trace format from the first record ${JSON.stringify((first.text ?? JSON.stringify(first.json)).slice(0, 120))}: name it with --replay-format (${TRACE_FORMATS.join(', ')})`,
  ]);
}

/** An open trace: its requests, streamed in file order, and a summary complete once they have been read. */
export interface TraceStream {
  requests: Iterable<TraceRequest>;
  summary: TraceLoadSummary;
  /** Call after reading: throws the UsageError (exit 2) naming every bad record, unless skipping them; fills the warnings. */
  finish(): TraceLoadSummary;
}

/** Open a trace of `kind` (`auto` detects it): nothing is read until `requests` is iterated. */
export function openTrace(path: string, kind = 'auto', options: TraceLoadOptions = {}): TraceStream {
  const detected = kind === 'auto' ? detectTraceKind(path) : undefined;
  const name = detected?.kind ?? kind;
  const loader = byKind<TraceLoader>(TRACE_LOADERS, name, '--replay-format');
  if (options.blockSize !== undefined && !(Number.isInteger(options.blockSize) && options.blockSize > 0))
    throw new UsageError([`--block-size: must be a positive integer, got ${options.blockSize}`]);
  const blockSize = options.blockSize ?? loader.defaultBlockSize;
  const problems = new TraceProblems(options.skipBadLines);
  const summary: TraceLoadSummary = { kind: name, ...(detected ? { detected: detected.reason } : {}), blockSize, requests: 0, skippedBadRecords: 0, droppedSubagents: 0, warnings: [] };
  const ctx = { options, problems, summary, blockSize };
  const requests = {
    *[Symbol.iterator]() {
      for (const r of loader.read(path, ctx)) {
        summary.requests++;
        yield r;
      }
    },
  };
  return {
    requests,
    summary,
    finish() {
      problems.finish();
      summary.skippedBadRecords = problems.count;
      summary.warnings = [...problems.warnings(), ...(summary.droppedSubagents ? [`${summary.droppedSubagents} subagents dropped: no parent turn before them to spawn them`] : [])];
      if (!summary.requests) throw new UsageError([`${path}: holds no usable request`, ...problems.list.slice(0, 5)]);
      return summary;
    },
  };
}

/** A whole trace in memory (stats, tests): every request, or the UsageError naming every bad record. */
export function loadTrace(path: string, kind = 'auto', options: TraceLoadOptions = {}): Trace {
  const t = openTrace(path, kind, options);
  const requests = [...t.requests];
  return { requests, summary: t.finish() };
}
