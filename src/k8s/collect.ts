// `tokenflood k8s collect`: copy the results volume (every shard's directory and the merged run) back with kubectl.
import { spawnSync } from 'node:child_process';
import { pod as podObject, type Pod } from './objects.js';
import { stringify } from 'yaml';
import { UsageError } from '../errors.js';
import { CONTAINER_SECURITY, POD_SECURITY, RESULTS_DIR } from './manifest.js';

export interface CollectOptions {
  name: string;
  namespace?: string;
  to: string;
  /** Image of the short-lived reader pod; it needs `tar` (kubectl cp uses it). */
  image: string;
  kubectl: string;
  timeoutS: number;
}

/** The reader pod: mounts the results volume read-only and sleeps until collect deletes it. */
export function readerPod(o: Pick<CollectOptions, 'name' | 'namespace' | 'image'>): Pod {
  return podObject({
    metadata: { name: `${o.name}-collect`, ...(o.namespace ? { namespace: o.namespace } : {}), labels: { 'app.kubernetes.io/name': 'tokenflood', 'app.kubernetes.io/instance': o.name, 'app.kubernetes.io/component': 'collect' } },
    spec: {
      restartPolicy: 'Never',
      securityContext: POD_SECURITY,
      containers: [{ name: 'reader', image: o.image, command: ['sleep', '3600'], securityContext: CONTAINER_SECURITY, volumeMounts: [{ name: 'results', mountPath: RESULTS_DIR, readOnly: true }] }],
      volumes: [{ name: 'results', persistentVolumeClaim: { claimName: `${o.name}-results`, readOnly: true } }],
    },
  });
}

/** The kubectl steps collect runs, in order (also what it prints when kubectl is missing). */
export function collectSteps(o: CollectOptions): { args: string[]; input?: string }[] {
  const ns = o.namespace ? ['-n', o.namespace] : [];
  const pod = `${o.name}-collect`;
  return [
    { args: [...ns, 'apply', '-f', '-'], input: stringify(readerPod(o)) },
    { args: [...ns, 'wait', '--for=condition=Ready', `pod/${pod}`, `--timeout=${o.timeoutS}s`] },
    { args: [...ns, 'cp', `${pod}:${RESULTS_DIR}`, o.to] },
    { args: [...ns, 'delete', 'pod', pod, '--wait=false'] },
  ];
}

/** Run the steps with kubectl; a missing kubectl is a UsageError that lists the steps to run by hand. */
export function collect(o: CollectOptions, log: (line: string) => void): void {
  const steps = collectSteps(o);
  const probe = spawnSync(o.kubectl, ['version', '--client'], { encoding: 'utf8' });
  if (probe.error) {
    const manual = steps.map((s) => `    kubectl ${s.args.join(' ')}${s.input ? '   (stdin: the reader pod below)' : ''}`);
    const pod = steps[0].input!.trimEnd().split('\n').map((l) => `      ${l}`);
    throw new UsageError([`k8s collect: ${o.kubectl} not found (${(probe.error as NodeJS.ErrnoException).code ?? probe.error.message}): install kubectl or give --kubectl PATH; by hand:\n${manual.join('\n')}\n    reader pod:\n${pod.join('\n')}`]);
  }
  let failed: string | undefined;
  for (const [i, s] of steps.entries()) {
    // The last step (deleting the reader pod) runs also after a failure, so no pod is left behind.
    if (failed && i < steps.length - 1) continue;
    log(`kubectl ${s.args.join(' ')}`);
    const r = spawnSync(o.kubectl, s.args, { input: s.input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
    if (r.status !== 0 && !failed) failed = `kubectl ${s.args.join(' ')} failed (exit ${r.status ?? r.signal}): ${(r.stderr || r.stdout || '').trim().slice(0, 500)}`;
  }
  if (failed) throw new UsageError([`k8s collect: ${failed}`]);
}
