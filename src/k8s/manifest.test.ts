// The generated objects pass the Kubernetes schema (kubernetes-models' validate), and the ConfigMap is a run --config file.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Pod } from 'kubernetes-models/v1/Pod';
import { Service } from 'kubernetes-models/v1/Service';
import { buildManifest, RUN_AS_UID, runConfigYaml, type ManifestObject } from './manifest.js';
import { readerPod } from './collect.js';
import type { Job as JobData, Pod as PodData } from './objects.js';
import { shardResources } from './resources.js';
import { resolveRunConfig } from '../config/load.js';

/** kubernetes-models' schema check (a dev dependency: the shipped code builds plain objects). */
const MODELS = { ConfigMap, PersistentVolumeClaim, Service, Job, Pod } as const;
const validate = (o: { kind?: string }) => new (MODELS[o.kind as keyof typeof MODELS] as new (d: unknown) => { validate(): void })(o).validate();

const opts = {
  name: 'llama-70b',
  namespace: 'loadtest',
  image: 'ghcr.io/example/tokenflood:0.1.0',
  shards: 4,
  startMarginS: 15,
  barrierTimeoutS: 600,
  deadlineS: 6 * 3600,
  ttlS: 86400,
  volumeMode: 'per-shard' as const,
  runFlags: { baseUrl: ['http://vllm:8000/v1'], concurrency: '64', requests: '2000', inputTokens: 'uniform:100,900', stream: false },
  streamsPerShard: 16,
  storage: '5Gi',
  accessMode: 'ReadWriteMany' as const,
  apiKeySecret: 'vllm-key',
};

describe('k8s manifest', () => {
  it('builds objects that pass the Kubernetes schema', () => {
    const objs = buildManifest(opts);
    expect(objs.map((o) => `${o.kind}/${o.metadata?.name}`)).toEqual(['ConfigMap/llama-70b-config', 'PersistentVolumeClaim/llama-70b-results', 'Service/llama-70b-shards', 'Job/llama-70b-shards', 'Job/llama-70b-merge']);
    for (const o of objs) expect(() => validate(o)).not.toThrow();
    expect(() => validate(readerPod(opts))).not.toThrow();
    const job = objs[3] as Job;
    expect(job.spec).toMatchObject({ completionMode: 'Indexed', completions: 4, parallelism: 4 });
    const c = job.spec!.template.spec!.containers[0];
    expect(c.env).toContainEqual({ name: 'TOKENFLOOD_SHARDS', value: '4' });
    expect(c.env).toContainEqual({ name: 'TOKENFLOOD_API_KEY', valueFrom: { secretKeyRef: { name: 'vllm-key', key: 'api-key' } } });
    // The start is agreed at the barrier, not fixed at generation: the agent runs the shard.
    expect(c.args!.slice(0, 2)).toEqual(['k8s', 'shard']);
    expect(c.args).toContain('--peers');
    expect(c.args!.join(' ')).toContain('http://llama-70b-shards-{i}.llama-70b-shards:7070');
    expect(c.args).not.toContain('--start-at');
  });

  /** Every container of the objects that run pods (init containers too), with its pod's security context. */
  const podsOf = (objs: readonly (ManifestObject | PodData)[]) =>
    objs.flatMap((o) => (o.kind === 'Job' ? [(o as JobData).spec!.template.spec!] : o.kind === 'Pod' ? [(o as PodData).spec!] : []));

  it('every pod and container passes the restricted Pod Security Standard', () => {
    const pods = podsOf([...buildManifest(opts), readerPod(opts)]);
    expect(pods).toHaveLength(3);
    for (const p of pods) {
      expect(p.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: RUN_AS_UID, seccompProfile: { type: 'RuntimeDefault' } });
      const containers = [...p.containers, ...(p.initContainers ?? [])];
      for (const c of containers) {
        expect(c.securityContext, c.name).toMatchObject({ allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
        expect(c.securityContext?.privileged ?? false).toBe(false);
      }
      // restricted allows only these volume types.
      for (const v of p.volumes ?? []) expect(Object.keys(v).filter((k) => k !== 'name')).toEqual([expect.stringMatching(/^(configMap|emptyDir|persistentVolumeClaim|secret|projected|ephemeral)$/)]);
      expect(p.hostNetwork ?? false).toBe(false);
    }
  });

  it('both Jobs have a deadline and a TTL; the merge fails instead of retrying', () => {
    const [, , , shards, merge] = buildManifest(opts) as Job[];
    for (const j of [shards, merge]) expect(j.spec).toMatchObject({ activeDeadlineSeconds: 6 * 3600, ttlSecondsAfterFinished: 86400 });
    expect(merge.spec!.backoffLimit).toBe(0);
    const gather = merge.spec!.template.spec!.initContainers![0];
    expect(gather.args!.slice(0, 2)).toEqual(['k8s', 'gather']);
    // It gives up (with its own message) a minute before the Job's deadline kills it.
    expect(gather.args![gather.args!.indexOf('--timeout') + 1]).toBe(`${6 * 3600 - 60}s`);
  });

  it('per-shard: shards write to their own emptyDir, only the merge pod mounts the claim (ReadWriteOnce); shared: one ReadWriteMany claim for all', () => {
    const per = buildManifest(opts);
    const [, pvc, svc, shards, merge] = per as [ManifestObject, ManifestObject, ManifestObject, Job, Job];
    expect((pvc as { spec: { accessModes: string[] } }).spec.accessModes).toEqual(['ReadWriteOnce']);
    expect(shards.spec!.template.spec!.volumes).toContainEqual({ name: 'results', emptyDir: {} });
    expect(merge.spec!.template.spec!.volumes).toEqual([{ name: 'results', persistentVolumeClaim: { claimName: 'llama-70b-results' } }]);
    expect(merge.spec!.template.spec!.initContainers![0].args).toContain('--copy');
    // The headless Service behind the pods' names; the pods' subdomain is it.
    expect((svc as { spec: object }).spec).toMatchObject({ clusterIP: 'None', publishNotReadyAddresses: true, ports: [{ port: 7070 }] });
    expect(shards.spec!.template.spec!.subdomain).toBe('llama-70b-shards');
    const shared = buildManifest({ ...opts, volumeMode: 'shared' }) as [ManifestObject, ManifestObject, ManifestObject, Job, Job];
    expect((shared[1] as { spec: { accessModes: string[] } }).spec.accessModes).toEqual(['ReadWriteMany']);
    expect(shared[3].spec!.template.spec!.volumes).toContainEqual({ name: 'results', persistentVolumeClaim: { claimName: 'llama-70b-results' } });
    expect(shared[4].spec!.template.spec!.initContainers![0].args).not.toContain('--copy');
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

  it('sizes memory from the per-stream figure', () => {
    const small = shardResources(10);
    const big = shardResources(1000);
    expect(parseInt(big.requests.memory, 10)).toBeGreaterThan(parseInt(small.requests.memory, 10) + 200);
    expect(parseInt(big.limits.memory, 10)).toBe(2 * parseInt(big.requests.memory, 10));
  });
});
