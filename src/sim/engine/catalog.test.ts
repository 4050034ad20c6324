// Every catalog model and GPU resolves by name, has its source, is listed in docs/sim.md, and gives a capacity report wherever it fits.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../errors.js';
import { planCapacity } from '../capacity.js';
import { GPUS, MODELS } from './catalog.js';
import { resolveEngine } from './config.js';
import { resolveGpu, resolveModel } from './resolve-profile.js';

const FAKE = new Set(['tiny', 'tiny-gpu']);
const simDoc = readFileSync(new URL('../../../docs/sim.md', import.meta.url), 'utf8');
const row = (id: string): string => simDoc.split('\n').find((l) => l.startsWith(`| \`${id}\``)) ?? '';

describe('catalog', () => {
  it('every model and GPU resolves by its id, names its source, and has a row in docs/sim.md with that source', () => {
    for (const [id, m] of Object.entries(MODELS)) {
      expect(resolveModel(id)).toBe(m);
      expect(m.id).toBe(id);
      if (FAKE.has(id)) continue;
      expect(m.hfName, id).toMatch(/^[\w.-]+\/[\w.-]+$/);
      expect(row(id), `docs/sim.md row for ${id}`).toContain(m.hfName!);
    }
    for (const [id, g] of Object.entries(GPUS)) {
      expect(resolveGpu(id)).toBe(g);
      expect(g.id).toBe(id);
      expect(row(id), `docs/sim.md row for ${id}`).not.toBe('');
      if (!FAKE.has(id)) expect(row(id), `docs/sim.md row for ${id} names its data sheet`).toMatch(/data sheet|product brief|whitepaper/i);
    }
  });

  it('every model gives a capacity report on every GPU that can hold it (TP up to 64), and fits somewhere', () => {
    const fitsOn = new Map<string, string[]>();
    for (const model of Object.keys(MODELS))
      for (const gpu of Object.keys(GPUS))
        for (const weightDtype of ['bf16', 'fp8'] as const) {
          let r;
          try {
            r = planCapacity({ modelProfile: model, gpu, weightDtype, inputTokens: Math.min(512, (MODELS[model].maxModelLen ?? 8192) - 192), outputTokens: 128, concurrency: 8 });
          } catch (e) {
            expect(e, `${model} on ${gpu}`).toBeInstanceOf(UsageError);
            expect((e as Error).message).toMatch(/needs [\d.]+ GiB per GPU before any KV cache/);
            continue;
          }
          fitsOn.set(model, [...(fitsOn.get(model) ?? []), `${gpu}/${weightDtype}`]);
          for (const [k, v] of Object.entries(r)) if (typeof v === 'number') expect(Number.isFinite(v), `${model} on ${gpu} ${weightDtype}: ${k}`).toBe(true);
          expect(r.kvCapacityRequests).toBeGreaterThanOrEqual(0);
          expect(r.tpotBatch1Ms).toBeGreaterThan(0);
          expect(r.weightBytesPerGpu).toBeLessThan(resolveEngine({ gpu, model, tp: r.tp, weightDtype }).gpu.memBytes);
        }
    for (const model of Object.keys(MODELS)) expect(fitsOn.get(model)?.length ?? 0, model).toBeGreaterThan(0);
    // The 1T-parameter Kimi K2 in FP8 fits on eight 256 GB MI325X.
    expect(fitsOn.get('kimi-k2')).toContain('mi325x/fp8');
  });
});
