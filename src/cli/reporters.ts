// The CLI's built-in reporters by name (--reporter, as vitest's): what a run shows while it runs and at its end.
import { Writable } from 'node:stream';
import type { Reporter } from '../run.js';
import type { Out } from './io.js';
import { byKind, kindsOf } from '../util/kinds.js';
import { progressReporter } from '../report/progress.js';
import { terminalViewReporter } from '../report/live/terminal-view-reporter.js';

/**
 * One reporter: whether it prints the start lines, its live display, and what it prints at the end. Reporters
 * given together combine: the start lines once, every display named, and the JSON document instead of the table
 * when `json` is one of them (stdout then holds that document only).
 */
export interface CliReporterKind {
  help: string;
  start: boolean;
  /** auto = the redrawn view on a terminal, progress lines elsewhere. */
  display: 'auto' | 'live' | 'progress' | 'none';
  end: 'table' | 'json' | 'none';
}

export const CLI_REPORTERS = {
  default: { help: 'the start lines, the live display (the redrawn view on a terminal, a progress line every 5 s elsewhere; none with --quiet) and the summary table', start: true, display: 'auto', end: 'table' },
  live: { help: 'the start lines, the redrawn live view (latencies, throughput, errors) on stderr, and the summary table', start: true, display: 'live', end: 'table' },
  progress: { help: 'the start lines, one progress line (every 5 s; redrawn in place on a terminal) on stderr, and the summary table', start: true, display: 'progress', end: 'table' },
  json: { help: 'the summary as one JSON document on stdout, start lines and the live display on stderr: the same as --json', start: true, display: 'auto', end: 'json' },
  silent: { help: 'nothing on stdout or stderr but warnings and errors; the results files and exit codes as always', start: false, display: 'none', end: 'none' },
} as const satisfies Record<string, CliReporterKind>;

export type CliReporterName = keyof typeof CLI_REPORTERS;

/** What the chosen reporters print, combined. */
export interface ReporterChoice {
  start: boolean;
  displays: ('live' | 'progress')[] | 'auto';
  end: 'table' | 'json' | 'none';
}

/**
 * --reporter values (repeatable, or a comma list) combined with --json and --quiet. Absent: `default` (`json`
 * with --json), as before the flag. An unknown name is a UsageError (exit 2) listing the valid ones.
 */
export function chooseReporters(names: string | readonly string[] | undefined, c: { json: boolean; quiet: boolean }): ReporterChoice {
  const given = (names === undefined ? [] : typeof names === 'string' ? [names] : names).flatMap((n) => n.split(',')).map((n) => n.trim()).filter(Boolean);
  const kinds = (given.length ? given : ['default']).map((n) => byKind<CliReporterKind>(CLI_REPORTERS, n, '--reporter'));
  if (c.json) kinds.push(CLI_REPORTERS.json);
  const shown = new Set(kinds.map((k) => k.display));
  const named = (['live', 'progress'] as const).filter((d) => shown.has(d));
  return {
    start: kinds.some((k) => k.start),
    displays: c.quiet ? [] : named.length ? named : shown.has('auto') ? 'auto' : [],
    end: kinds.some((k) => k.end === 'json') ? 'json' : kinds.some((k) => k.end === 'table') ? 'table' : 'none',
  };
}

/** The live displays of a choice on `stream` (stderr); `label` prefixes each line; `auto` is what `default` shows (eval: progress). */
export function displayReporters(choice: ReporterChoice, stream: NodeJS.WriteStream, label = '', auto: 'live' | 'progress' = stream.isTTY ? 'live' : 'progress'): Reporter[] {
  const displays = choice.displays === 'auto' ? [auto] : choice.displays;
  return displays.map((d) => (d === 'live' ? terminalViewReporter(stream, label) : progressReporter(stream, label)));
}

/** The names, for help text. */
export const CLI_REPORTER_NAMES = kindsOf(CLI_REPORTERS);

/** A stream that drops what is written (the start lines or the end of a silent reporter). */
export const discard = (): NodeJS.WriteStream => new Writable({ write: (_c, _e, cb) => cb() }) as unknown as NodeJS.WriteStream;

/** `out` as the end of a choice prints to: stdout dropped when nothing is printed at the end (warnings stay on stderr). */
export function endOut(choice: ReporterChoice, out: Out): Out {
  return choice.end === 'none' ? { out: discard(), err: out.err } : out;
}
