// A process that exits right after taking records (process.exit, as a second Ctrl-C does, or an uncaught throw) still has them all on disk.
import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { tmpDir } from './helpers.js';

const DIST = join(__dirname, '..', 'dist', 'metrics');

/** A child that takes `n` records into a RecordWriter, writes the lines it expects to `expected.jsonl` directly, then `end`s. */
function child(dir: string, n: number, end: string) {
  const script = `
    import { writeFileSync } from 'node:fs';
    import { RecordWriter, recordLine } from ${JSON.stringify(pathToFileURL(join(DIST, 'jsonl.js')).href)};
    import { toRecord } from ${JSON.stringify(pathToFileURL(join(DIST, 'derive.js')).href)};
    const raw = (id) => ({ id, attempt: 1, warmup: false, class: undefined, status: 'ok', http_status: 200, error: null, scheduled_at_ms: id,
      sent_at_ms: id + 0.5, headers_ms: id + 2, end_ms: id + 9, streamed: true, event_times_ms: [id + 3, id + 9], event_kinds: 'aa',
      reasoning_chars: 0, answer_chars: 8, input_tokens: 8, output_tokens: 2, reasoning_tokens: 0, cached_tokens: null, token_source: 'usage',
      expected_input_tokens: 8, max_tokens: 2, finish_reason: 'stop', reconnected: false, code: null, usage_rejected: null, events_after_done: 0 });
    const recs = Array.from({ length: ${n} }, (_, i) => toRecord(raw(i)));
    writeFileSync(${JSON.stringify(join(dir, 'expected.jsonl'))}, recs.map(recordLine).join(''));
    const w = new RecordWriter(${JSON.stringify(join(dir, 'requests.jsonl'))}, undefined, { lowSpaceBytes: 0 });
    for (const r of recs) if (!w.write(r)) throw new Error('refused');
    ${end}
  `;
  return spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
}

describe.skipIf(!existsSync(join(DIST, 'jsonl.js')))('records still buffered when the process exits (needs `npm run build`)', () => {
  it.each([
    ['3 records waiting for the flush timer, then process.exit(130)', 3, 'process.exit(130);', 130],
    ['20,000 records, a background write still out, then process.exit(143)', 20_000, 'process.exit(143);', 143],
    ['records taken, then an uncaught throw', 500, "throw new Error('boom');", 1],
  ])('%s: every record is in requests.jsonl, byte for byte', (_name, n, end, code) => {
    const dir = tmpDir();
    const r = child(dir, n, end);
    expect(r.status, r.stderr).toBe(code);
    const expected = readFileSync(join(dir, 'expected.jsonl'), 'utf8');
    expect(expected.split('\n')).toHaveLength(n + 1);
    expect(readFileSync(join(dir, 'requests.jsonl'), 'utf8')).toBe(expected);
  });
});
