// Issue 25: a sweep finding that rests on a client-bound point says so in sweep.json, the terminal and report.html,
// and a sweep without SLOs never claims a load "meeting SLOs".
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveSweepConfig } from '../src/sweep/config.js';
import { runSweep } from '../src/sweep/sweep.js';
import { renderSweep } from '../src/sweep/terminal.js';
import { startSlotServer, type SlotServer } from './fixtures/slot-server.js';
import { tmpDir } from './helpers.js';


// Burn `ms` of this process's CPU time (not wall time: on a loaded machine the OS may deschedule the loop mid-way,
// and only CPU time is the client's own work); capped at 40x in wall time.
const burnCpu = (ms: number) => {
  const c0 = process.cpuUsage();
  const wallEnd = performance.now() + 40 * ms;
  for (;;) {
    const c = process.cpuUsage(c0);
    if ((c.user + c.system) / 1000 >= ms || performance.now() > wallEnd) return;
  }
};
let server: SlotServer;
beforeAll(async () => {
  server = await startSlotServer({ slots: 4, tokenMs: 4 });
});
afterAll(() => server?.close());

describe.each(['h1', 'undici'] as const)('sweep findings on client-bound points (transport %s)', (transport) => {
  it('marks the recommendation resting on the flagged top level, and words the no-SLO headline', async () => {
    const out = join(tmpDir(), `cb-${transport}`);
    let blocker: NodeJS.Timeout | undefined;
    // Block the event loop with 30 ms of CPU work every 40 ms while level 4 runs: the client's own work, so it is client-bound.
    const { doc } = await runSweep(
      resolveSweepConfig({ flags: { concurrency: '1,2,4', requests: '8', out }, runFlags: { baseUrl: server.baseUrl, inputTokens: 16, outputTokens: 8, transport } }),
      {
        hooks: {
          onPointStart: (p) => {
            if (p.load === 4)
              blocker = setInterval(() => burnCpu(30), 40);
          },
          onPointDone: () => clearInterval(blocker),
        },
      },
    );
    const c4 = doc.points.find((p) => p.load === 4)!;
    expect(c4.client_bound).toBe(true);
    const g = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8')).insights[0];
    // With or without a knee, the recommendation rests on the top level (the cap, or the end of the knee's chord).
    expect(g.recommended.client_bound_points).toContain(c4.name);
    const mark = new RegExp(`Recommended operating point: .*\\[rests on client-bound points? [^\\]]*${c4.name}[^\\]]*: may reflect the load generator, not the server\\]`);
    expect(g.statements.join('\n')).toMatch(mark);
    const term = renderSweep(doc);
    expect(term).toMatch(mark);
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    // Another point may be flagged too on a busy machine (c2 beside c4): the note lists every one.
    expect(html).toMatch(new RegExp(`rests on client-bound (?:[^<]*, )?${c4.name}`));
    // No --slo: the only check was the error threshold.
    for (const text of [term, html, g.statements.join('\n')]) expect(text).not.toMatch(/meeting (the )?SLOs/i);
    expect(html).toContain('highest load under 5% errors (no SLO)');
    expect(term).toMatch(/Highest load with an error rate under 5% \(no SLO given\): concurrency 4/);
  });
});
