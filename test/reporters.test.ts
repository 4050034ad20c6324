// A reporter added by a caller sees the whole run: runStart once, every record, snapshots on the run clock, runEnd with the summary.
import { describe, it, expect } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { run, type Reporter } from '../src/run.js';
import { simulate } from '../src/simulate.js';
import type { SnapshotEvent } from '../src/report/events.js';
import { startSimServer } from '../src/sim/server.js';
import { tmpDir } from './helpers.js';

function recorder() {
  const seen = { starts: 0, records: 0, snapshots: [] as SnapshotEvent[], ends: 0, endWritten: [] as string[], summaryTotal: -1, filesAtEnd: false };
  const reporter: Reporter = {
    name: 'test',
    runStart: () => void seen.starts++,
    record: () => void seen.records++,
    snapshot: (s) => void seen.snapshots.push(s),
    runEnd: (e) => {
      seen.ends++;
      seen.summaryTotal = e.summary.requests.total;
      seen.endWritten = [...e.files.written];
      // The run's own files are complete before any caller's reporter runs.
      seen.filesAtEnd = ['requests.jsonl', 'run.json', 'summary.json', 'report.html'].every((f) => existsSync(join(e.outDir, f)));
    },
  };
  return { seen, reporter };
}

describe('reporters', () => {
  it('virtual driver: snapshots once a second of virtual time, counts rising to the total', async () => {
    const { seen, reporter } = recorder();
    const res = await simulate({ requests: 300, rate: 10, arrival: 'constant', inputTokens: 64, outputTokens: 16, out: tmpDir() }, { reporters: [reporter] });
    expect([seen.starts, seen.ends, seen.records, seen.summaryTotal]).toEqual([1, 1, 300, 300]);
    expect(seen.filesAtEnd).toBe(true);
    expect(seen.endWritten).toEqual(expect.arrayContaining(['requests.jsonl', 'run.json', 'summary.json', 'report.html']));
    // 300 requests at 10/s: about 30 s of virtual time, so about 30 snapshots, exactly 1 s apart.
    expect(seen.snapshots.length).toBeGreaterThanOrEqual(28);
    const gaps = seen.snapshots.slice(1).map((s, i) => s.elapsedS - seen.snapshots[i].elapsedS);
    expect(gaps.every((g) => Math.abs(g - 1) < 1e-9)).toBe(true);
    const done = seen.snapshots.map((s) => s.done);
    expect(done).toEqual([...done].sort((a, b) => a - b));
    expect(seen.snapshots.some((s) => s.inFlight > 0 && s.requestsPerS > 5)).toBe(true);
    expect(res.summary.requests.total).toBe(300);
  });

  it('real driver: at least one snapshot a second of a run that lasts a few seconds', async () => {
    const server = await startSimServer({ timeScale: 1 });
    try {
      const { seen, reporter } = recorder();
      const t0 = performance.now();
      await run({ baseUrl: server.baseUrl, requests: 40, concurrency: 4, inputTokens: 64, outputTokens: 64, out: tmpDir(), quiet: true }, { reporters: [reporter] });
      const wallS = (performance.now() - t0) / 1000;
      expect([seen.starts, seen.ends, seen.records, seen.summaryTotal]).toEqual([1, 1, 40, 40]);
      // Timers on a loaded machine fire late, never much early: at least one snapshot for every full 2 s of run.
      expect(seen.snapshots.length, `${wallS.toFixed(1)} s run`).toBeGreaterThanOrEqual(Math.max(1, Math.floor(wallS / 2) - 1));
      expect(seen.snapshots.at(-1)!.done).toBeLessThanOrEqual(40);
    } finally {
      await server.close();
    }
  });
});
