// Where rule routing and trace instances sent a run's requests: the fixed target of each, and the counts run.json keeps.
import type { RequestSpec } from '../dataset/types.js';
import { ruleTarget, type RouteReason, type RouteRule } from './route-rules.js';

/** Distinct unknown instance names kept by name; past this they are only counted (a trace could name thousands). */
export const MAX_UNKNOWN_INSTANCES = 50;

/** run.json / summary.json `run.routing` (docs/routing.md#what-the-run-records). */
export interface RoutingTally {
  route: string;
  /** Routing decisions (every attempt, warmup and retries included) by what placed them. */
  placed: Record<RouteReason, number>;
  /** The rule's placements per endpoint (by-length/by-class). */
  by_rule?: Record<string, number>;
  /** Hits per instance: requests whose trace line named this endpoint as its `instance`, all sent to it. */
  instances?: Record<string, number>;
  /** Instances a trace named that are no endpoint of the run (those requests went by the policy or rule). */
  unknown_instances?: Record<string, number>;
  unknown_instances_other?: number;
}

export interface RouteTally {
  /** The endpoint index a request must go to (its instance, else the rule), or undefined: the policy picks. */
  fixed(spec: RequestSpec): number | undefined;
  summary(): RoutingTally;
}

export function createRouteTally(route: string, rule: RouteRule | undefined, names: readonly string[]): RouteTally {
  const index = new Map(names.map((n, i) => [n, i]));
  const nameSet = new Set(names);
  const placed: Record<RouteReason, number> = { instance: 0, rule: 0, policy: 0 };
  const byRule = new Map<string, number>();
  const instances = new Map<string, number>();
  const unknown = new Map<string, number>();
  let unknownOther = 0;
  const bump = (m: Map<string, number>, k: string): void => void m.set(k, (m.get(k) ?? 0) + 1);
  return {
    fixed(spec) {
      if (spec.instance !== undefined && !nameSet.has(spec.instance)) {
        if (unknown.has(spec.instance) || unknown.size < MAX_UNKNOWN_INSTANCES) bump(unknown, spec.instance);
        else unknownOther++;
      }
      const t = ruleTarget(rule, spec, nameSet);
      if (!t) {
        placed.policy++;
        return undefined;
      }
      placed[t.reason]++;
      bump(t.reason === 'instance' ? instances : byRule, t.target);
      return index.get(t.target);
    },
    summary() {
      const sorted = (m: Map<string, number>) => Object.fromEntries([...m.entries()].sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true })));
      return {
        route,
        placed: { ...placed },
        ...(rule ? { by_rule: sorted(byRule) } : {}),
        ...(instances.size ? { instances: sorted(instances) } : {}),
        ...(unknown.size ? { unknown_instances: sorted(unknown) } : {}),
        ...(unknownOther ? { unknown_instances_other: unknownOther } : {}),
      };
    },
  };
}

/** `run.routing` of a summary, if the run had one (older runs have none). */
export function routingOf(run: Record<string, unknown>): RoutingTally | undefined {
  const r = run.routing as RoutingTally | undefined;
  return r && typeof r === 'object' && r.placed ? r : undefined;
}

/** One plain-text line: what placed the requests (untrusted names: the caller escapes for its medium). */
export function placementText(r: RoutingTally): string {
  const p = r.placed;
  const parts = [`${p.instance} by their trace instance`, `${p.rule} by the rule`, `${p.policy} by ${r.by_rule ? 'round-robin (no band or class matched)' : 'the policy'}`];
  const unknown = Object.values(r.unknown_instances ?? {}).reduce((a, b) => a + b, 0) + (r.unknown_instances_other ?? 0);
  return `routing (${r.route}): ${parts.join(', ')}${unknown ? `; ${unknown} named an instance that is no endpoint of the run` : ''}`;
}
