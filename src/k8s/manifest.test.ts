// The generated objects pass the Kubernetes schema (kubernetes-models' validate), and the ConfigMap is a run --config file.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Pod } from 'kubernetes-models/v1/Pod';
import { buildManifest, runConfigYaml, waitForShardsScript } from './manifest.js';
import { readerPod } from './collect.js';
import { shardResources } from './resources.js';
import { resolveRunConfig } from '../config/load.js';

/** kubernetes-models' schema check (a dev dependency: the shipped code builds plain objects). */
const MODELS = { ConfigMap, PersistentVolumeClaim, Job, Pod } as const;
const validate = (o: { kind: string }) => new (MODELS[o.kind as keyof typeof MODELS] as new (d: unknown) => { validate(): void })(o).validate();

const opts = {
  name: 'llama-70b',
  namespace: 'loadtest',
  image: 'ghcr.io/example/tokenflood:0.1.0',
  shards: 4,
  startAtMs: Date.parse('2026-12-01T18:00:00Z'),
  runFlags: { baseUrl: ['http://vllm:8000/v1'], concurrency: '64', requests: '2000', inputTokens: 'uniform:100,900', stream: false },
  streamsPerShard: 16,
  storage: '5Gi',
  accessMode: 'ReadWriteMany' as const,
  apiKeySecret: 'vllm-key',
};

describe('k8s manifest', () => {
  it('builds objects that pass the Kubernetes schema', () => {
    const objs = buildManifest(opts);
    expect(objs.map((o) => `${o.kind}/${o.metadata?.name}`)).toEqual(['ConfigMap/llama-70b-config', 'PersistentVolumeClaim/llama-70b-results', 'Job/llama-70b-shards', 'Job/llama-70b-merge']);
    for (const o of objs) expect(() => validate(o)).not.toThrow();
    expect(() => validate(readerPod(opts))).not.toThrow();
    const job = objs[2] as Job;
    expect(Object.keys(job).slice(0, 2)).toEqual(['apiVersion', 'kind']);
    expect(job.spec).toMatchObject({ completionMode: 'Indexed', completions: 4, parallelism: 4 });
    const c = job.spec!.template.spec!.containers[0];
    expect(c.env).toContainEqual({ name: 'TOKENFLOOD_SHARDS', value: '4' });
    expect(c.env).toContainEqual({ name: 'TOKENFLOOD_API_KEY', valueFrom: { secretKeyRef: { name: 'vllm-key', key: 'api-key' } } });
    expect(c.args).toContain('2026-12-01T18:00:00.000Z');
  });

  it('the schema check is real: a broken Job fails it', () => {
    const bad = new Job({ metadata: { name: 'x' }, spec: { completions: 'three' as unknown as number, template: { spec: { containers: [{ name: 'a' } as never] } } } });
    expect(() => bad.validate()).toThrow();
  });

  it('writes the run flags as a --config file that resolves to the same run', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'tokenflood-k8s-')), 'run.yaml');
    writeFileSync(file, runConfigYaml(opts.runFlags));
    const fromFile = resolveRunConfig({ flags: {}, configFile: file, env: {} }).config;
    const fromFlags = resolveRunConfig({ flags: opts.runFlags, env: {} }).config;
    expect(fromFile).toEqual(fromFlags);
  });

  it('sizes memory from the per-stream figure and waits for every shard before merging', () => {
    const small = shardResources(10);
    const big = shardResources(1000);
    expect(parseInt(big.requests.memory, 10)).toBeGreaterThan(parseInt(small.requests.memory, 10) + 200);
    expect(parseInt(big.limits.memory, 10)).toBe(2 * parseInt(big.requests.memory, 10));
    expect(waitForShardsScript(4)).toContain('-lt 4');
  });
});
