// Kubernetes objects as plain data, typed with kubernetes-models' interfaces at compile time only: the package (22 MB
// with its validators) is a dev dependency, and the Kubernetes schema check runs in the tests (docs/install.md).
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import type { IPod } from 'kubernetes-models/v1/Pod';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import type { IService } from 'kubernetes-models/v1/Service';

export type ConfigMap = IConfigMap;
export type PersistentVolumeClaim = IPersistentVolumeClaim;
export type Pod = IPod;
export type Job = IJob;
export type Service = IService;
export type { IContainer } from 'kubernetes-models/v1/Container';

/** Undefined fields dropped at every depth, as kubernetes-models' toJSON does: the YAML then shows only what is set. */
function defined<T>(x: T): T {
  if (Array.isArray(x)) return x.map(defined) as T;
  if (x === null || typeof x !== 'object') return x;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(x)) if (v !== undefined) out[k] = defined(v);
  return out as T;
}

type Data<T> = Omit<T, 'apiVersion' | 'kind'>;

/** apiVersion and kind first, as kubectl and kubernetes-models write them. */
export const configMap = (d: Data<IConfigMap>): ConfigMap => defined({ apiVersion: 'v1', kind: 'ConfigMap', ...d });
export const persistentVolumeClaim = (d: Data<IPersistentVolumeClaim>): PersistentVolumeClaim => defined({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', ...d });
export const pod = (d: Data<IPod>): Pod => defined({ apiVersion: 'v1', kind: 'Pod', ...d });
export const job = (d: Data<IJob>): Job => defined({ apiVersion: 'batch/v1', kind: 'Job', ...d });
export const service = (d: Data<IService>): Service => defined({ apiVersion: 'v1', kind: 'Service', ...d });
