// --shard on datasets and traces (in-process runs against the sim server): each line goes to exactly one shard, as request j of the single-machine run.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSimServer, type SimServerHandle } from '../src/sim/server.js';
import { run } from '../src/run.js';
import { readRecords } from '../src/metrics/jsonl.js';
import type { RequestRecord } from '../src/metrics/record.js';
import { tmpDir } from './helpers.js';

let server: SimServerHandle;
beforeAll(async () => {
  server = await startSimServer({ timeScale: 20 });
});
afterAll(() => server?.close());

const N = 3;

async function runOnce(flags: Record<string, unknown>, shard?: string): Promise<RequestRecord[]> {
  const out = join(tmpDir(), 'r');
  await run({ ...flags, baseUrl: server.baseUrl, out, quiet: true, ...(shard ? { shard } : {}) });
  return readRecords(join(out, 'requests.jsonl')).records;
}

/** The shards' records together: each id once, each with the single-machine run's request (prompt length, max_tokens). */
async function expectSplit(flags: Record<string, unknown>): Promise<RequestRecord[][]> {
  const single = await runOnce(flags);
  const shards: RequestRecord[][] = [];
  for (let i = 0; i < N; i++) shards.push(await runOnce(flags, `${i}/${N}`));
  const all = shards.flat();
  expect(all.map((r) => r.id).sort((a, b) => a - b)).toEqual(single.map((r) => r.id).sort((a, b) => a - b));
  const byId = new Map(single.map((r) => [r.id, r]));
  for (const r of all) expect([r.id, r.expected_input_tokens, r.max_tokens]).toEqual([r.id, byId.get(r.id)!.expected_input_tokens, byId.get(r.id)!.max_tokens]);
  shards.forEach((rs, i) => expect(rs.every((r) => r.id % N === i && r.shard === `${i}/${N}`)).toBe(true));
  return shards;
}

describe('shards split datasets and traces by line', () => {
  // Line k has a prompt of a different length and max_tokens, so a record tells which line it sent.
  const lines = Array.from({ length: 14 }, (_, k) => ({ prompt: 'word '.repeat(5 + 7 * k), max_tokens: 2 + (k % 5) }));

  it('once-mode dataset in random order: every line sent once, request j with the single-machine run\'s line j', async () => {
    const f = join(tmpDir(), 'data.jsonl');
    writeFileSync(f, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const shards = await expectSplit({ dataset: f, datasetMode: 'once', datasetOrder: 'random', concurrency: 3 });
    expect(shards.flat().length).toBe(lines.length);
  }, 60_000);

  it('reuse-mode dataset: the shards cycle through the one item order', async () => {
    const f = join(tmpDir(), 'data.jsonl');
    writeFileSync(f, lines.slice(0, 5).map((l) => JSON.stringify(l)).join('\n') + '\n');
    await expectSplit({ dataset: f, requests: 12, concurrency: 3 });
  }, 60_000);

  it('trace replay: line j to shard j mod N, at its recorded time', async () => {
    const f = join(tmpDir(), 'trace.jsonl');
    writeFileSync(f, lines.map((l, k) => JSON.stringify({ timestamp: 1_000_000 + 25 * k, ...l })).join('\n') + '\n');
    const shards = await expectSplit({ replay: f });
    for (const rs of shards) for (const r of rs) expect(r.scheduled_at_ms - rs[0].scheduled_at_ms).toBeCloseTo(25 * (r.id - rs[0].id), 0);
  }, 60_000);
});
