// `tokenflood k8s manifest`: the Kubernetes objects of one sharded run, as typed plain objects (./objects.ts).
import { stringify } from 'yaml';
import { configMap, job, persistentVolumeClaim, service as serviceObject, type ConfigMap, type IContainer, type Job, type PersistentVolumeClaim, type Service } from './objects.js';
import type { IPodSecurityContext } from 'kubernetes-models/v1/PodSecurityContext';
import type { ISecurityContext } from 'kubernetes-models/v1/SecurityContext';
import { toKebab } from '../util/parse.js';
import { shardResources } from './resources.js';
import { COORD_PORT } from './barrier.js';

/**
 * Where the results live. per-shard: each shard writes to its pod's own emptyDir and the merge pod copies them over
 * HTTP onto one ReadWriteOnce claim (works on every cluster's default storage class). shared: one claim every pod
 * mounts (ReadWriteMany, e.g. NFS, EFS, Filestore, Azure Files), the shards write their directories on it directly.
 */
export const VOLUME_MODES = ['per-shard', 'shared'] as const;
export type VolumeMode = (typeof VOLUME_MODES)[number];

/** UID and GID of the image's `node` user (node:20-slim): numeric, so runAsNonRoot can be checked by the kubelet. */
export const RUN_AS_UID = 1000;
/** How long a finished shard waits for the merge pod to collect its results before it exits anyway. */
export const LINGER_S = 1800;

export interface ManifestOptions {
  /** Object names are `<name>-config`, `<name>-results`, `<name>-shards`, `<name>-merge`. */
  name: string;
  namespace?: string;
  image: string;
  shards: number;
  /** After every shard is ready (the barrier), the run starts this long later: time for its preparation. */
  startMarginS: number;
  /** A shard gives up (and no shard starts) when the others are not all ready by then. */
  barrierTimeoutS: number;
  /** activeDeadlineSeconds of both Jobs: nothing waits longer than this. */
  deadlineS: number;
  /** ttlSecondsAfterFinished of both Jobs (the claim stays). */
  ttlS: number;
  volumeMode: VolumeMode;
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

export type ManifestObject = ConfigMap | PersistentVolumeClaim | Service | Job;

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

/** The pods' security context: passes the `restricted` Pod Security Standard. */
export const POD_SECURITY: IPodSecurityContext = { runAsNonRoot: true, runAsUser: RUN_AS_UID, runAsGroup: RUN_AS_UID, fsGroup: RUN_AS_UID, seccompProfile: { type: 'RuntimeDefault' } };
/** Every container's: no privilege escalation, no capabilities, non-root, the runtime's default seccomp profile. */
export const CONTAINER_SECURITY: ISecurityContext = { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } };

/** The headless Service that gives shard i the name <name>-shards-i.<name>-shards (the Indexed Job's hostnames). */
export const serviceName = (o: Pick<ManifestOptions, 'name'>): string => `${o.name}-shards`;
/** Shard i's coordination URL, {i} filled in by each pod. */
export const peersTemplate = (o: Pick<ManifestOptions, 'name'>): string => `http://${serviceName(o)}-{i}.${serviceName(o)}:${COORD_PORT}`;

/**
 * The shards' container: the shard agent (`tokenflood k8s shard`), which waits at the barrier until all N shards
 * answer, then runs `tokenflood run --config … --start-at <agreed> --out /results/shard-I`, then serves its status
 * (and, per-shard, its files) to the merge pod.
 */
function shardContainer(o: ManifestOptions): IContainer {
  return {
    name: 'tokenflood',
    image: o.image,
    args: [
      'k8s', 'shard', '--index', '$(JOB_COMPLETION_INDEX)', '--shards', String(o.shards), '--peers', peersTemplate(o), '--dir', shardDir('$(JOB_COMPLETION_INDEX)'),
      '--start-margin', `${o.startMarginS}s`, '--barrier-timeout', `${o.barrierTimeoutS}s`, '--linger', `${LINGER_S}s`,
      '--', 'run', '--config', CONFIG_FILE, '--quiet',
    ],
    ports: [{ name: 'coord', containerPort: COORD_PORT }],
    securityContext: CONTAINER_SECURITY,
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

/** The merge pod waits this much less than the deadline, so it fails with its own message before being killed. */
const GATHER_SLACK_S = 60;

/** ConfigMap, results claim, headless Service, the Indexed Job of the shards and the merge Job, in the order to apply them. */
export function buildManifest(o: ManifestOptions): ManifestObject[] {
  const claim = { name: 'results', persistentVolumeClaim: { claimName: `${o.name}-results` } };
  const shardVolumes = [{ name: 'config', configMap: { name: `${o.name}-config` } }, o.volumeMode === 'shared' ? claim : { name: 'results', emptyDir: {} }];
  const config = configMap({ metadata: meta(o, `${o.name}-config`, 'config'), data: { 'run.yaml': runConfigYaml(o.runFlags) } });
  const pvc = persistentVolumeClaim({
    metadata: meta(o, `${o.name}-results`, 'results'),
    // per-shard: only the merge pod mounts it, so ReadWriteOnce (every default storage class) is enough.
    spec: { accessModes: [o.volumeMode === 'shared' ? o.accessMode : 'ReadWriteOnce'], resources: { requests: { storage: o.storage } }, ...(o.storageClass ? { storageClassName: o.storageClass } : {}) },
  });
  const service = serviceObject({
    metadata: meta(o, serviceName(o), 'shard'),
    spec: { clusterIP: 'None', publishNotReadyAddresses: true, selector: labels(o, 'shard'), ports: [{ name: 'coord', port: COORD_PORT, targetPort: COORD_PORT }] },
  });
  const jobSpec = { activeDeadlineSeconds: o.deadlineS, ttlSecondsAfterFinished: o.ttlS };
  const shards = job({
    metadata: meta(o, `${o.name}-shards`, 'shard'),
    spec: {
      completionMode: 'Indexed',
      completions: o.shards,
      parallelism: o.shards,
      // A shard that ran again would send its part of the plan twice, out of step with the others.
      backoffLimit: 0,
      ...jobSpec,
      template: {
        metadata: { labels: labels(o, 'shard') },
        spec: { restartPolicy: 'Never', subdomain: serviceName(o), securityContext: POD_SECURITY, containers: [shardContainer(o)], volumes: shardVolumes },
      },
    },
  });
  const dirs = Array.from({ length: o.shards }, (_, i) => shardDir(i));
  const gatherArgs = ['k8s', 'gather', '--shards', String(o.shards), '--peers', peersTemplate(o), '--to', RESULTS_DIR, '--timeout', `${Math.max(60, o.deadlineS - GATHER_SLACK_S)}s`, ...(o.volumeMode === 'per-shard' ? ['--copy'] : [])];
  const merge = job({
    metadata: meta(o, `${o.name}-merge`, 'merge'),
    spec: {
      // Gathering twice cannot work (the shards exit once collected): a failure is reported, not retried.
      backoffLimit: 0,
      ...jobSpec,
      template: {
        metadata: { labels: labels(o, 'merge') },
        spec: {
          restartPolicy: 'Never',
          securityContext: POD_SECURITY,
          initContainers: [
            { name: 'gather', image: o.image, args: gatherArgs, securityContext: CONTAINER_SECURITY, resources: { requests: { cpu: '100m', memory: '256Mi' } }, volumeMounts: [{ name: 'results', mountPath: RESULTS_DIR }] },
          ],
          containers: [
            {
              name: 'merge',
              image: o.image,
              args: ['merge', ...dirs, '--out', MERGED_DIR, '--overwrite'],
              securityContext: CONTAINER_SECURITY,
              resources: { requests: { cpu: '1', memory: '512Mi' } },
              volumeMounts: [{ name: 'results', mountPath: RESULTS_DIR }],
            },
          ],
          volumes: [claim],
        },
      },
    },
  });
  return [config, pvc, service, shards, merge];
}

/** The objects as one multi-document YAML stream (kubectl apply -f). */
export function manifestYaml(objs: readonly ManifestObject[], header = ''): string {
  return header + objs.map((x) => stringify(x, { lineWidth: 0 })).join('---\n');
}
