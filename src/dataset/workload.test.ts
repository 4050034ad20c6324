// Workload registry: the kind chosen from the options, each factory builds that kind; an unknown kind lists the valid ones.
import { describe, it, expect } from 'vitest';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { createWorkload, workloadFactory, workloadKind, WORKLOAD_KINDS } from './workload.js';
import { loadTokenizer } from './tokenizer.js';
import { createRng } from '../util/rng.js';
import { UsageError } from '../errors.js';
import type { WorkloadParams } from './params.js';

const tok = loadTokenizer('cl100k_base');
const base: WorkloadParams = {
  endpoint: 'chat', requests: 4, warmup: 0, inputTokens: '16', outputTokens: '4', corpus: 'en', prefixTokens: 0, prefixGroups: 1,
  cacheBust: true, cacheAb: false, datasetFormat: 'auto', datasetField: [], datasetOrder: 'sequential', datasetMode: 'reuse', strict: false,
  thinkTime: 0, replaySpeed: 1, replayFormat: 'auto', skipBadLines: false, sessionAnswers: 'recorded', startAtFraction: 0,
};
const dir = mkdtempSync(join(tmpdir(), 'tokenflood-workload-'));
const data = join(dir, 'd.jsonl');
writeFileSync(data, '{"prompt":"hello there"}\n{"prompt":"general kenobi"}\n');
const trace = join(dir, 't.jsonl');
writeFileSync(trace, '{"timestamp":0,"prompt":"a"}\n{"timestamp":5,"prompt":"b"}\n');

describe('workload registry', () => {
  it('chooses one kind from the options, and each kind builds a workload that describes itself as that kind', () => {
    const cases: [WorkloadParams, string][] = [
      [base, 'synthetic'],
      [{ ...base, mix: 'a: 50% in 16 out 4; b: 50% in 32 out 4' }, 'synthetic'],
      [{ ...base, dataset: data }, 'dataset'],
      [{ ...base, replay: trace }, 'replay'],
      [{ ...base, cacheAb: true }, 'cache-ab'],
      [{ ...base, cacheAb: true, dataset: data }, 'cache-ab'],
    ];
    for (const [c, kind] of cases) {
      expect(workloadKind(c)).toBe(kind);
      const w = createWorkload(c, tok, createRng(1), 4);
      expect(w.describe().kind).toBe(kind);
      expect(workloadFactory(kind)(c, tok, createRng(1), 4, {}).describe().kind).toBe(kind);
    }
    expect(WORKLOAD_KINDS).toEqual(['synthetic', 'dataset', 'replay', 'cache-ab']);
  });

  it('answers an unknown kind with the valid ones', () => {
    expect(() => workloadFactory('multi-turn')).toThrow(new UsageError(['workload: unknown kind "multi-turn" (valid: synthetic, dataset, replay, cache-ab)']));
    expect(() => workloadFactory('hasOwnProperty')).toThrow(/valid: synthetic/);
  });
});
