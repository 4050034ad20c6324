// Route policies: which of several endpoints a request goes to (--route), as a lookup table of pure pickers.
import { createHashRing, fnv1a } from '../util/hash-ring.js';

export const ROUTE_POLICIES = ['round-robin', 'random', 'least-in-flight', 'weighted', 'prefix-hash', 'session'] as const;
export type RoutePolicy = (typeof ROUTE_POLICIES)[number];

export interface RouteMember {
  name: string;
  weight: number;
}

/** What a picker may look at for one request. */
export interface RouteRequest {
  /** The request's shared-prefix key (its prefix group, else the start of its prompt): prefix-hash's key. */
  prefixKey: string;
  /** The request's session (a trace's conversation): session's key; a request without one is routed round-robin. */
  sessionKey?: string;
}

export interface Router {
  /** The member index for the next request. */
  pick(req: RouteRequest): number;
  /** A request on member `i` started / finished: least-in-flight counts them. */
  started(i: number): void;
  finished(i: number): void;
}

/** Requests in flight per member, kept by the router for least-in-flight and counted for every policy. */
function inFlight(n: number) {
  const live = new Int32Array(n);
  return { live, started: (i: number) => void live[i]++, finished: (i: number) => void (live[i] = Math.max(0, live[i] - 1)) };
}

type Factory = (members: readonly RouteMember[], random: () => number) => Router;

/** Smooth weighted round-robin (nginx): over any window of Σw picks, member i gets w_i of them, spread evenly. */
function smoothWeighted(weights: readonly number[]): () => number {
  const current = weights.map(() => 0);
  const total = weights.reduce((a, b) => a + b, 0);
  return () => {
    let best = 0;
    for (let i = 0; i < weights.length; i++) {
      current[i] += weights[i];
      if (current[i] > current[best]) best = i;
    }
    current[best] -= total;
    return best;
  };
}

export const ROUTERS: Record<RoutePolicy, Factory> = {
  // Plain rotation in list order; weights are ignored (use weighted for shares).
  'round-robin': (m) => {
    const f = inFlight(m.length);
    let next = 0;
    return { pick: () => next++ % m.length, ...f };
  },
  // Independent draws with probability w_i / Σw.
  random: (m, random) => {
    const f = inFlight(m.length);
    const total = m.reduce((a, x) => a + x.weight, 0);
    return {
      pick: () => {
        let r = random() * total;
        for (let i = 0; i < m.length; i++) if ((r -= m[i].weight) < 0) return i;
        return m.length - 1;
      },
      ...f,
    };
  },
  // Fewest requests in flight, relative to weight (in_flight / w); ties go to the member picked least recently.
  'least-in-flight': (m) => {
    const f = inFlight(m.length);
    const lastPick = new Float64Array(m.length).fill(-1);
    let n = 0;
    return {
      pick: () => {
        let best = 0;
        for (let i = 1; i < m.length; i++) {
          const a = f.live[i] / m[i].weight;
          const b = f.live[best] / m[best].weight;
          if (a < b || (a === b && lastPick[i] < lastPick[best])) best = i;
        }
        lastPick[best] = n++;
        return best;
      },
      ...f,
    };
  },
  weighted: (m) => ({ pick: smoothWeighted(m.map((x) => x.weight)), ...inFlight(m.length) }),
  // Consistent hash of the prefix key over the members (weighted ring): one prefix, one member.
  'prefix-hash': (m) => {
    const ring = createHashRing(
      m.map((x) => x.name),
      m.map((x) => x.weight),
    );
    return { pick: (req) => ring.pick(req.prefixKey), ...inFlight(m.length) };
  },
  // Session affinity: a consistent hash of the session id (the same weighted ring), so every turn of a conversation
  // reaches the endpoint that holds its earlier turns' KV blocks; requests without a session go round-robin.
  session: (m) => {
    const ring = createHashRing(
      m.map((x) => x.name),
      m.map((x) => x.weight),
    );
    let next = 0;
    return { pick: (req) => (req.sessionKey !== undefined ? ring.pick(`session:${req.sessionKey}`) : next++ % m.length), ...inFlight(m.length) };
  },
};

export function createRouter(policy: RoutePolicy, members: readonly RouteMember[], random: () => number = Math.random): Router {
  return ROUTERS[policy](members, random);
}

/**
 * --models: the model of request `index`, drawn with probability w / Σw from a hash of (seed, index), so a request
 * keeps its model whatever order requests are sent in, and the same seed gives the same models.
 */
export function createModelPicker(models: readonly { model: string; weight: number }[], seed: number): (index: number) => string {
  const total = models.reduce((a, m) => a + m.weight, 0);
  return (index) => {
    let r = (fnv1a(`${seed}:${index}`) / 4294967296) * total;
    for (const m of models) if ((r -= m.weight) < 0) return m.model;
    return models[models.length - 1].model;
  };
}
