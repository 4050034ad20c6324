// Reading trace files record by record (JSONL, CSV) with bounded read-ahead, or one JSON document (a Weka session file).
import { closeSync, readSync } from 'node:fs';
import { UsageError } from '../../../errors.js';
import { openRegularFile, mib } from '../../../util/read-file.js';
import { fileLines, type Line } from '../../formats/lines.js';
import { jsonlRecords, type RawRecord } from '../../formats/jsonl.js';
import { csvRecords } from '../../formats/csv.js';

/** Largest single JSON session file read whole (a Weka trace); line-based formats stream instead. */
export const MAX_SESSION_FILE_BYTES = 256 * 1024 * 1024;

function open(file: string): { fd: number; size: number } {
  const opened = openRegularFile(file);
  if ('problem' in opened) throw new UsageError([`${file}: cannot read: ${opened.problem}`]);
  return opened;
}

/** The lines of a file, read in 1 MiB chunks; the file is closed when the iteration ends (or stops early). */
export function* linesOf(file: string): Generator<Line> {
  const { fd } = open(file);
  try {
    yield* fileLines(fd, file);
  } finally {
    closeSync(fd);
  }
}

/** JSONL records (blank lines and `//` comments skipped), each with its line number or its problem. */
export const jsonlOf = (file: string): Generator<RawRecord> => jsonlRecords(linesOf(file));

/** CSV records keyed by the header row's names. */
export const csvOf = (file: string): Generator<RawRecord> => csvRecords(linesOf(file), file.toLowerCase().endsWith('.tsv') ? '\t' : ',', (n) => `${file}:${n}`);

/** A whole JSON document (one session file), or its problem in words. */
export function jsonDocument(file: string): { value?: unknown; problem?: string } {
  const { fd, size } = open(file);
  try {
    if (size > MAX_SESSION_FILE_BYTES) return { problem: `${mib(size)} is more than the ${mib(MAX_SESSION_FILE_BYTES)} a session file may hold` };
    const buf = Buffer.allocUnsafe(size);
    let got = 0;
    while (got < size) {
      const n = readSync(fd, buf, got, size - got, got);
      if (n === 0) break;
      got += n;
    }
    try {
      return { value: JSON.parse(buf.toString('utf8', 0, got)) };
    } catch (e) {
      return { problem: `not valid JSON: ${(e as Error).message}` };
    }
  } finally {
    closeSync(fd);
  }
}
