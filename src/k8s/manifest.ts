// `tokenflood k8s manifest`: the Kubernetes objects of one sharded run, as typed plain objects (./objects.ts).
import { stringify } from 'yaml';
import { configMap, job, persistentVolumeClaim, type ConfigMap, type IContainer, type Job, type PersistentVolumeClaim } from './objects.js';
import { toKebab } from '../config/parse.js';
import { shardResources } from './resources.js';

export interface ManifestOptions {
  /** Object names are `<name>-config`, `<name>-results`, `<name>-shards`, `<name>-merge`. */
  name: string;
  namespace?: string;
  image: string;
  shards: number;
  /** The shards' --start-at (epoch ms), fixed when the manifest is generated. */
  startAtMs: number;
  /** The run's flags as given (camelCase keys), written to the ConfigMap as the --config file. */
  runFlags: Record<string, unknown>;
  /** Streams (closed-loop VUs or open-loop in-flight cap) of the busiest shard: sizes its memory. */
  streamsPerShard: number;
  storage: string;
  storageClass?: string;
  accessMode: 'ReadWriteMany' | 'ReadWriteOnce';
  /** A Secret whose key `api-key` becomes TOKENFLOOD_API_KEY (the key never goes into the ConfigMap). */
  apiKeySecret?: string;
}

export type ManifestObject = ConfigMap | PersistentVolumeClaim | Job;

export const CONFIG_DIR = '/etc/tokenflood';
export const CONFIG_FILE = `${CONFIG_DIR}/run.yaml`;
export const RESULTS_DIR = '/results';
export const MERGED_DIR = `${RESULTS_DIR}/merged`;
/** Kubernetes expands $(VAR) in args from the container's env; the Job controller sets this one per pod. */
export const shardDir = (i: number | string): string => `${RESULTS_DIR}/shard-${i}`;

/** The ConfigMap's run.yaml: the run flags, kebab-case keys (the --config format of `tokenflood run`). */
export function runConfigYaml(flags: Record<string, unknown>): string {
  const doc: Record<string, unknown> = {};
  for (const k of Object.keys(flags).sort()) {
    const v = flags[k];
    // One --base-url reads better as a value than as a list of one (both are valid in a --config file).
    if (v !== undefined) doc[toKebab(k)] = k === 'baseUrl' && Array.isArray(v) && v.length === 1 ? v[0] : v;
  }
  return stringify(doc);
}

const labels = (o: ManifestOptions, component: string) => ({ 'app.kubernetes.io/name': 'tokenflood', 'app.kubernetes.io/instance': o.name, 'app.kubernetes.io/component': component });
const meta = (o: ManifestOptions, name: string, component: string) => ({ name, ...(o.namespace ? { namespace: o.namespace } : {}), labels: labels(o, component) });

/** The shards' container: `tokenflood run --config … --start-at … --out /results/shard-$(JOB_COMPLETION_INDEX)`. */
function shardContainer(o: ManifestOptions): IContainer {
  return {
    name: 'tokenflood',
    image: o.image,
    args: ['run', '--config', CONFIG_FILE, '--start-at', new Date(o.startAtMs).toISOString(), '--out', shardDir('$(JOB_COMPLETION_INDEX)'), '--quiet'],
    env: [
      // Set explicitly (the Job controller sets it too, and keeps ours) so that $(JOB_COMPLETION_INDEX) expands in args.
      { name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']" } } },
      { name: 'TOKENFLOOD_SHARDS', value: String(o.shards) },
      ...(o.apiKeySecret ? [{ name: 'TOKENFLOOD_API_KEY', valueFrom: { secretKeyRef: { name: o.apiKeySecret, key: 'api-key' } } }] : []),
    ],
    resources: shardResources(o.streamsPerShard),
    volumeMounts: [
      { name: 'config', mountPath: CONFIG_DIR, readOnly: true },
      { name: 'results', mountPath: RESULTS_DIR },
    ],
  };
}

/** The merge Job's init step: wait until every shard has written its summary.json (the end of its run). */
export function waitForShardsScript(n: number): string {
  return `i=0; while [ $i -lt ${n} ]; do if [ -f ${RESULTS_DIR}/shard-$i/summary.json ]; then i=$((i+1)); else sleep 5; fi; done`;
}

/** ConfigMap, results PVC, the Indexed Job of the shards and the merge Job, in the order to apply them. */
export function buildManifest(o: ManifestOptions): ManifestObject[] {
  const volumes = [
    { name: 'config', configMap: { name: `${o.name}-config` } },
    { name: 'results', persistentVolumeClaim: { claimName: `${o.name}-results` } },
  ];
  const config = configMap({ metadata: meta(o, `${o.name}-config`, 'config'), data: { 'run.yaml': runConfigYaml(o.runFlags) } });
  const pvc = persistentVolumeClaim({
    metadata: meta(o, `${o.name}-results`, 'results'),
    spec: { accessModes: [o.accessMode], resources: { requests: { storage: o.storage } }, ...(o.storageClass ? { storageClassName: o.storageClass } : {}) },
  });
  const shards = job({
    metadata: meta(o, `${o.name}-shards`, 'shard'),
    spec: {
      completionMode: 'Indexed',
      completions: o.shards,
      parallelism: o.shards,
      // A shard that ran again would send its part of the plan twice, out of step with the others.
      backoffLimit: 0,
      template: { metadata: { labels: labels(o, 'shard') }, spec: { restartPolicy: 'Never', containers: [shardContainer(o)], volumes } },
    },
  });
  const dirs = Array.from({ length: o.shards }, (_, i) => shardDir(i));
  const merge = job({
    metadata: meta(o, `${o.name}-merge`, 'merge'),
    spec: {
      backoffLimit: 2,
      template: {
        metadata: { labels: labels(o, 'merge') },
        spec: {
          restartPolicy: 'Never',
          initContainers: [{ name: 'wait-for-shards', image: o.image, command: ['sh', '-c', waitForShardsScript(o.shards)], volumeMounts: [{ name: 'results', mountPath: RESULTS_DIR, readOnly: true }] }],
          containers: [
            {
              name: 'merge',
              image: o.image,
              args: ['merge', ...dirs, '--out', MERGED_DIR, '--overwrite'],
              resources: { requests: { cpu: '1', memory: '512Mi' } },
              volumeMounts: [{ name: 'results', mountPath: RESULTS_DIR }],
            },
          ],
          volumes: [volumes[1]],
        },
      },
    },
  });
  return [config, pvc, shards, merge];
}

/** The objects as one multi-document YAML stream (kubectl apply -f). */
export function manifestYaml(objs: readonly ManifestObject[], header = ''): string {
  return header + objs.map((x) => stringify(x, { lineWidth: 0 })).join('---\n');
}
