// Batching variants of the engine model: static vs continuous batching, and priority scheduling with preemption.
import { describe, expect, it } from 'vitest';
import { simulateRun, type VirtualRecord } from '../virtual.js';
import { resolveEngine } from './config.js';
import { createEngine } from './engine.js';

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const ttftMs = (r: VirtualRecord): number => r.firstTokenMs! - r.sentMs;

describe('--batching static vs continuous', () => {
  it('static admits nothing while a batch member is decoding: B waits for A to finish', () => {
    const firstTokenStep = (batching: 'static' | 'continuous') => {
      const e = createEngine(resolveEngine({ batching, asyncScheduling: false }));
      e.add({ id: 'a', promptTokens: 100, outputTokens: 20 });
      e.step();
      e.add({ id: 'b', promptTokens: 100, outputTokens: 20 });
      let aDone = -1;
      for (let n = 2; n < 100; n++) {
        const s = e.step()!;
        if (s.outputs.some((o) => o.id === 'a' && o.finished)) aDone = n;
        if (s.outputs.some((o) => o.id === 'b' && o.tokenIndex === 1)) return { b: n, aDone };
      }
      throw new Error('b never started');
    };
    const cont = firstTokenStep('continuous');
    const stat = firstTokenStep('static');
    expect(cont.b).toBe(2); // joins the running batch at once
    expect(cont.aDone).toBe(-1);
    expect(stat.aDone).toBeGreaterThan(0);
    expect(stat.b).toBeGreaterThan(stat.aDone); // only after the whole batch (a) finished
  });

  it('static forms its batch from everything waiting while idle, even past one step\'s token budget', () => {
    const e = createEngine(resolveEngine({ batching: 'static', asyncScheduling: false }));
    for (const id of ['a', 'b', 'c']) e.add({ id, promptTokens: 50, outputTokens: 5 });
    expect(e.step()!.started.map((s) => s.id)).toEqual(['a', 'b', 'c']);
    // 40 prompts of 500 tokens: 16 fit an 8,192-token step; the batch keeps admitting its members, and only them.
    const f = createEngine(resolveEngine({ batching: 'static', asyncScheduling: false }));
    for (let i = 0; i < 40; i++) f.add({ id: `m${i}`, promptTokens: 500, outputTokens: 30 });
    const started: string[] = [];
    started.push(...f.step()!.started.map((s) => s.id));
    f.add({ id: 'late', promptTokens: 500, outputTokens: 30 });
    let lateAt = -1, lastMemberDone = -1;
    for (let n = 2; n < 200 && lateAt < 0; n++) {
      const s = f.step()!;
      started.push(...s.started.map((x) => x.id).filter((id) => id !== 'late'));
      if (s.started.some((x) => x.id === 'late')) lateAt = n;
      if (s.outputs.some((o) => o.id.startsWith('m') && o.finished)) lastMemberDone = n;
    }
    expect(started.length).toBe(40);
    expect(lateAt).toBeGreaterThan(lastMemberDone);
  });

  it('under load with mixed output lengths, static has far higher TTFT and lower throughput than continuous', () => {
    const go = (batching: 'static' | 'continuous') => {
      const run = simulateRun({
        engine: { model: 'llama-3.1-8b', gpu: 'h100', batching, maxNumSeqs: 64 },
        requests: (i) => ({ promptTokens: 500, maxTokens: 50 + ((i * 97) % 450), ignoreEos: true }),
        load: { rate: 20, requests: 300, seed: 5 },
      });
      const tokens = run.records.reduce((a, r) => a + r.outputTokens, 0);
      return { ttft: mean(run.records.map(ttftMs)), tps: tokens / (run.durationMs / 1000), done: run.records.filter((r) => !r.error).length };
    };
    const cont = go('continuous');
    const stat = go('static');
    expect(cont.done).toBe(300);
    expect(stat.done).toBe(300);
    expect(stat.ttft).toBeGreaterThan(cont.ttft * 3);
    expect(stat.tps).toBeLessThan(cont.tps * 0.9);
  });
});

describe('--scheduling-policy priority', () => {
  // A small KV cache (400 blocks = 6,400 tokens) kept full by low-priority requests; every 4th request is urgent.
  const go = (schedulingPolicy: 'fcfs' | 'priority') =>
    simulateRun({
      engine: { numGpuBlocksOverride: 400, schedulingPolicy },
      requests: (i) => ({ promptTokens: 400, maxTokens: 300, ignoreEos: true, priority: i % 4 === 0 ? 0 : 10 }),
      load: { concurrency: 40, requests: 200 },
    });

  it('urgent requests get their first token far sooner than under fcfs, and sooner than the rest', () => {
    const fcfs = go('fcfs');
    const prio = go('priority');
    const urgent = (r: VirtualRecord) => r.index % 4 === 0;
    const fcfsUrgent = mean(fcfs.records.filter(urgent).map(ttftMs));
    const prioUrgent = mean(prio.records.filter(urgent).map(ttftMs));
    const prioRest = mean(prio.records.filter((r) => !urgent(r)).map(ttftMs));
    expect(prioUrgent).toBeLessThan(fcfsUrgent * 0.5);
    expect(prioUrgent).toBeLessThan(prioRest * 0.5);
    expect(prio.records.every((r) => r.outputTokens === 300)).toBe(true);
  });

  it('a waiting urgent request preempts the lowest-priority running one when KV runs out', () => {
    // 40 blocks: two 300-token requests fill the cache; the urgent one arrives third and takes the place of one.
    const e = createEngine(resolveEngine({ numGpuBlocksOverride: 40, schedulingPolicy: 'priority', asyncScheduling: false }));
    e.add({ id: 'low-1', promptTokens: 290, outputTokens: 40, priority: 5 });
    e.add({ id: 'low-2', promptTokens: 290, outputTokens: 40, priority: 9 });
    e.step();
    e.add({ id: 'urgent', promptTokens: 290, outputTokens: 5, priority: 0 });
    const s = e.step()!;
    expect(s.preempted).toEqual(['low-2']);
    expect(s.started.map((x) => x.id)).toEqual(['urgent']);
    const fcfs = createEngine(resolveEngine({ numGpuBlocksOverride: 40, asyncScheduling: false }));
    fcfs.add({ id: 'low-1', promptTokens: 290, outputTokens: 40, priority: 5 });
    fcfs.add({ id: 'low-2', promptTokens: 290, outputTokens: 40, priority: 9 });
    fcfs.step();
    fcfs.add({ id: 'urgent', promptTokens: 290, outputTokens: 5, priority: 0 });
    expect(fcfs.step()!.started).toEqual([]);
  });
});
