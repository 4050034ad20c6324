// Per-request priority (issue 32 item 12): the A/B of priority preemption on the engine model (virtual time, so the
// figures are deterministic), the real sim server honouring and refusing what the body carries, and bad input.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { startSimServer, type SimServerHandle } from '../src/sim/server.js';
import { startScriptServer, type ScriptServer } from './fixtures/script-server.js';
import { capture } from './io-capture.js';
import { tmpDir } from './helpers.js';

interface Block { requests: { total: number; ok: number; failed: number }; ttft_ms: { p50: number | null }; e2e_ms: { p50: number | null } }
interface Summary { requests: { total: number; ok: number }; by_priority?: Record<string, Block> }
const summaryOf = (dir: string): Summary => JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Summary;
const recordsOf = (dir: string): { id: number; status: string; priority?: number; error: string | null }[] =>
  readFileSync(join(dir, 'requests.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const c = capture();
  const code = await main(args, c.io);
  return { code, out: c.out, err: c.err };
}

describe('priority mix on the engine model (simulate, virtual time)', () => {
  // 12 req/s of 4,000-token prompts overloads the default engine, so a queue builds: its order is what priority changes.
  const load = ['--rate', '12', '--requests', '300', '--input-tokens', '4000', '--output-tokens', '200', '--priority-mix', '0:0.2,10:0.8', '--dataset-seed', '5'];
  const root = tmpDir();
  const prio = join(root, 'priority');
  const fcfs = join(root, 'fcfs');
  beforeAll(async () => {
    const a = await cli(['simulate', ...load, '--scheduling-policy', 'priority', '--out', prio]);
    expect(a.code, a.err).toBe(0);
    expect(a.out).toMatch(/by priority \(lower runs first\):\npriority\s+ok/);
    // The FCFS arm: the same classes drawn and recorded, no priority sent (vLLM refuses one under fcfs).
    const b = await cli(['simulate', ...load, '--no-priority-send', '--quiet', '--out', fcfs]);
    expect(b.code, b.err).toBe(0);
  }, 120_000);

  it('priority scheduling: the urgent fifth gets a far lower TTFT p50 than the rest', () => {
    const s = summaryOf(prio);
    const urgent = s.by_priority!['0'];
    const rest = s.by_priority!['10'];
    expect(urgent.requests.total + rest.requests.total).toBe(300);
    expect(urgent.requests.total / 300).toBeGreaterThan(0.12);
    expect(urgent.requests.total / 300).toBeLessThan(0.28);
    expect(urgent.requests.failed + rest.requests.failed).toBe(0);
    // Measured: 564 vs 15,629 ms; fcfs below gives 10,198 vs 12,459 ms.
    expect(urgent.ttft_ms.p50!).toBeLessThan(rest.ttft_ms.p50! * 0.25);
    // The rest pay for it: their E2E p50 is above the urgent class's.
    expect(rest.e2e_ms.p50!).toBeGreaterThan(urgent.e2e_ms.p50!);
    // report.html and stats.csv carry the same table, lowest priority first.
    const html = readFileSync(join(prio, 'report.html'), 'utf8');
    expect(html).toMatch(/<h3 id="by-priority">By priority[^<]*<\/h3><div class="scroll"><table><thead><tr><th>priority<\/th>.*?<tbody><tr><td>0<\/td><td>(\d+)<\/td>.*?<tr><td>10<\/td><td>(\d+)<\/td>/);
    const m = /id="by-priority".*?<td>0<\/td><td>(\d+)<\/td>.*?<td>10<\/td><td>(\d+)<\/td>/.exec(html)!;
    expect([Number(m[1]), Number(m[2])]).toEqual([urgent.requests.ok, rest.requests.ok]);
    const csv = readFileSync(join(prio, 'stats.csv'), 'utf8').split('\n').map((l) => l.split(',')[0]);
    expect(csv.filter((c) => c.startsWith('priority:'))).toEqual(['priority:0', 'priority:10']);
  });

  it('fcfs: the two classes are alike', () => {
    const s = summaryOf(fcfs);
    const ratio = s.by_priority!['0'].ttft_ms.p50! / s.by_priority!['10'].ttft_ms.p50!;
    expect(ratio).toBeGreaterThan(0.5);
    expect(ratio).toBeLessThan(2);
    expect(s.requests.ok).toBe(300);
  });

  it('the same seed gives every request the same priority in both arms', () => {
    const byId = (dir: string) => new Map(recordsOf(dir).map((r) => [r.id, r.priority]));
    const a = byId(prio);
    const b = byId(fcfs);
    expect(a.size).toBe(300);
    for (const [id, p] of a) {
      expect([0, 10]).toContain(p);
      expect(b.get(id)).toBe(p);
    }
    const run = JSON.parse(readFileSync(join(prio, 'run.json'), 'utf8')) as { workload: { priority_mix: unknown } };
    expect(run.workload.priority_mix).toEqual([{ priority: 0, share: 0.2 }, { priority: 10, share: 0.8 }]);
  });

  it('sent under fcfs, a priority other than 0 is refused as vLLM refuses it', async () => {
    const dir = join(root, 'refused');
    const r = await cli(['simulate', '--concurrency', '2', '--requests', '20', '--input-tokens', '100', '--output-tokens', '10', '--priority-mix', '0:0.5,3:0.5', '--quiet', '--out', dir]);
    expect(r.code).not.toBe(2);
    const recs = recordsOf(dir);
    expect(recs.some((x) => x.priority === 0) && recs.some((x) => x.priority === 3)).toBe(true);
    for (const x of recs) {
      if (x.priority === 0) expect(x.status).toBe('ok');
      else {
        expect(x.error).toContain('Got priority 3 but Priority scheduling is not enabled.');
        expect(x.code).toBe('E_PRIORITY_NOT_ENABLED');
      }
    }
    // The summary's playbook names the switches that fix it.
    const s = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    const row = s.requests.errors_by_code.find((e: { code: string }) => e.code === 'E_PRIORITY_NOT_ENABLED');
    expect(row.hint).toContain('--scheduling-policy priority');
    expect(row.hint).toContain('--no-priority-send');
  }, 60_000);
});

describe('priority on the real sim server', () => {
  let fcfs: SimServerHandle;
  let prio: SimServerHandle;
  const dir = tmpDir();
  beforeAll(async () => {
    fcfs = await startSimServer({ timeScale: 50 }, { log: () => {} });
    prio = await startSimServer({ timeScale: 50, schedulingPolicy: 'priority' }, { log: () => {} });
  });
  afterAll(async () => Promise.all([fcfs.close(), prio.close()]));

  it("a dataset line's priority wins over --extra-body's, which the other lines carry", async () => {
    const data = join(dir, 'data.jsonl');
    writeFileSync(data, ['{"prompt":"one","priority":5}', '{"prompt":"two"}', '{"prompt":"three","priority":0}', '{"prompt":"four"}'].join('\n') + '\n');
    const out = join(dir, 'data-run');
    const r = await cli(['run', '--base-url', fcfs.baseUrl, '--dataset', data, '--dataset-mode', 'once', '--output-tokens', '4', '--extra-body', '{"priority":0}', '--quiet', '--no-server-metrics', '--out', out]);
    expect(r.err).not.toMatch(/internal error/);
    const recs = recordsOf(out).sort((a, b) => a.id - b.id);
    expect(recs.map((x) => x.priority)).toEqual([5, 0, 0, 0]);
    // The fcfs server refuses a non-zero priority: only the line that gave 5 was refused, so 5 is what its body carried.
    expect(recs.map((x) => x.status)).toEqual(['http_error', 'ok', 'ok', 'ok']);
    expect(recs[0].error).toContain('Got priority 5');
    const s = summaryOf(out);
    expect(Object.keys(s.by_priority!).sort()).toEqual(['0', '5']);
    expect(s.by_priority!['5'].requests.failed).toBe(1);
  }, 60_000);

  it('--priority-mix from a config file, on a server with priority scheduling: every request served, by_priority in --json', async () => {
    const cfg = join(dir, 'run.yaml');
    writeFileSync(cfg, 'priority-mix: "0:0.25,7:0.75"\nrequests: 40\nconcurrency: 8\ninput-tokens: 200\noutput-tokens: 20\n');
    const out = join(dir, 'mix-run');
    const r = await cli(['run', '--config', cfg, '--base-url', prio.baseUrl, '--json', '--no-server-metrics', '--out', out]);
    expect(r.code, r.err).toBe(0);
    const s = JSON.parse(r.out) as Summary;
    expect(Object.keys(s.by_priority!).sort()).toEqual(['0', '7']);
    expect(s.by_priority!['0'].requests.ok + s.by_priority!['7'].requests.ok).toBe(40);
    const recs = recordsOf(out);
    expect(recs.every((x) => x.status === 'ok' && (x.priority === 0 || x.priority === 7))).toBe(true);
  }, 60_000);
});

describe('the embedded sim server with --sim-scheduling-policy', () => {
  it('priority: every request of a mix is served (under fcfs the non-zero ones are refused)', async () => {
    const root = tmpDir();
    const args = ['--priority-mix', '0:0.5,4:0.5', '--requests', '16', '--concurrency', '4', '--input-tokens', '100', '--output-tokens', '8', '--sim-time-scale', '20', '--quiet', '--no-server-metrics'];
    const a = await cli(['run', ...args, '--sim-scheduling-policy', 'priority', '--out', join(root, 'p')]);
    expect(a.code, a.err).toBe(0);
    const served = recordsOf(join(root, 'p'));
    expect(served.every((x) => x.status === 'ok')).toBe(true);
    expect(new Set(served.map((x) => x.priority))).toEqual(new Set([0, 4]));
    await cli(['run', ...args, '--out', join(root, 'f')]);
    const refused = recordsOf(join(root, 'f'));
    expect(refused.filter((x) => x.priority === 4).every((x) => x.status === 'http_error')).toBe(true);
    expect(refused.filter((x) => x.priority === 0).every((x) => x.status === 'ok')).toBe(true);
  }, 60_000);
});

describe('bad priority input: exit 2, one message naming the flag, nothing sent', () => {
  let server: ScriptServer;
  const dir = tmpDir();
  beforeAll(async () => {
    server = await startScriptServer(() => ({ steps: [] }));
  });
  afterAll(() => server.close());
  const bad = join(dir, 'bad.jsonl');
  writeFileSync(bad, '{"prompt":"a","priority":"urgent"}\n');
  const cases: [string, string[], RegExp][] = [
    ['a zero weight', ['--priority-mix', '0:0,10:1'], /--priority-mix: priority 0 has weight 0: weights must be above 0/],
    ['a priority that is not an integer', ['--priority-mix', '0.5:1'], /--priority-mix: "0.5:1" is not PRIORITY:WEIGHT/],
    ['a protocol without a priority field', ['--priority-mix', '0:1', '--backend', 'anthropic-messages'], /--priority-mix: --backend anthropic-messages has no per-request priority field/],
    ['a mix next to --extra-body priority', ['--priority-mix', '0:1', '--extra-body', '{"priority":3}'], /--priority-mix: --extra-body also sets "priority"/],
    ['--sim-scheduling-policy that is not a policy', ['--sim-scheduling-policy', 'lifo'], /--sim-scheduling-policy/],
    ['a dataset priority that is not an integer (--strict)', ['--dataset', bad, '--strict'], /bad\.jsonl:1: priority must be an integer/],
  ];
  for (const [name, args, re] of cases) {
    it(name, async () => {
      const before = server.bodies.length;
      const r = await cli(['run', ...args, '--requests', '2', '--base-url', server.baseUrl, '--quiet', '--out', join(dir, name.replace(/\W+/g, '-'))]);
      expect(r.code, r.err).toBe(2);
      expect(r.err).toMatch(re);
      expect(server.bodies.length).toBe(before);
    });
  }
});
