// Rule routing ("model buckets"): --route by-length:0-8k=t1,8k-=t2 and by-class[:CLASS=TARGET,...], and a trace
// line's own `instance`, each naming the target a request must reach; the policies of route-policies.ts pick otherwise.
import { ROUTE_POLICIES, type RoutePolicy } from './route-policies.js';
import { unknownKind } from '../util/kinds.js';

/** One input-length band of by-length: prompts of lo ≤ input tokens < hi go to `target` (hi = Infinity: open end). */
export interface LengthBand {
  lo: number;
  hi: number;
  target: string;
}

export type RouteRule = { kind: 'by-length'; bands: LengthBand[] } | { kind: 'by-class'; classes: Map<string, string> | undefined };

/** A --route value: a policy of route-policies.ts, or a rule (with round-robin for what the rule does not place). */
export type RouteSpec = { policy: RoutePolicy; rule?: RouteRule };

/** `8k` = 8 × 1024 tokens (a context length's k, as in 32k/128k models), `8000` = 8000; undefined when not a count. */
export function parseTokenBound(s: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)([kKmM]?)$/.exec(s.trim());
  if (!m) return undefined;
  const n = Number(m[1]) * (m[2] === '' ? 1 : m[2].toLowerCase() === 'k' ? 1024 : 1024 * 1024);
  return Number.isFinite(n) && Number.isInteger(n) ? n : undefined;
}

/** `LO-HI=T` (or `LO-=T`, `LO+=T`) items, half-open [LO, HI); bands must not overlap. Problems name the item. */
function parseBands(body: string): { bands: LengthBand[] } | { problem: string } {
  const bands: LengthBand[] = [];
  for (const part of body.split(',').map((p) => p.trim()).filter(Boolean)) {
    const eq = part.lastIndexOf('=');
    const range = eq > 0 ? part.slice(0, eq).trim() : '';
    const target = eq > 0 ? part.slice(eq + 1).trim() : '';
    const m = /^([^-+]+)(?:-([^-]*)|\+)$/.exec(range);
    if (!m || !target) return { problem: `"${part}": expected LO-HI=TARGET, LO-=TARGET or LO+=TARGET (token counts, k = 1024), e.g. 0-8k=t1,8k-=t2` };
    const lo = parseTokenBound(m[1]);
    const hi = m[2] === undefined || m[2] === '' ? Infinity : parseTokenBound(m[2]);
    if (lo === undefined || hi === undefined) return { problem: `"${part}": the bounds must be token counts such as 0, 8000 or 8k` };
    if (hi <= lo) return { problem: `"${part}": the upper bound must be above the lower one` };
    const clash = bands.find((b) => lo < b.hi && b.lo < hi);
    if (clash) return { problem: `"${part}": overlaps the band ${fmtBand(clash)}` };
    bands.push({ lo, hi, target });
  }
  if (!bands.length) return { problem: 'expected at least one band, e.g. by-length:0-8k=t1,8k-=t2' };
  return { bands: bands.sort((a, b) => a.lo - b.lo) };
}

export const fmtBand = (b: LengthBand): string => `${b.lo}-${b.hi === Infinity ? '' : b.hi}=${b.target}`;

/** Parse a --route value; the problem text follows `--route: `. */
export function parseRouteSpec(s: string): RouteSpec | { problem: string } {
  if ((ROUTE_POLICIES as readonly string[]).includes(s)) return { policy: s as RoutePolicy };
  if (s.startsWith('by-length:')) {
    const r = parseBands(s.slice('by-length:'.length));
    return 'problem' in r ? { problem: `by-length: ${r.problem}` } : { policy: 'round-robin', rule: { kind: 'by-length', bands: r.bands } };
  }
  if (s === 'by-class') return { policy: 'round-robin', rule: { kind: 'by-class', classes: undefined } };
  if (s.startsWith('by-class:')) {
    const classes = new Map<string, string>();
    for (const part of s.slice('by-class:'.length).split(',').map((p) => p.trim()).filter(Boolean)) {
      const eq = part.indexOf('=');
      const cls = eq > 0 ? part.slice(0, eq).trim() : '';
      const target = eq > 0 ? part.slice(eq + 1).trim() : '';
      if (!cls || !target) return { problem: `by-class: "${part}": expected CLASS=TARGET, e.g. by-class:rag=t2,chat=t1` };
      if (classes.has(cls)) return { problem: `by-class: class "${cls}" is listed twice` };
      classes.set(cls, target);
    }
    if (!classes.size) return { problem: 'by-class: expected CLASS=TARGET items after "by-class:", or by-class alone (a class names its target)' };
    return { policy: 'round-robin', rule: { kind: 'by-class', classes } };
  }
  return { problem: unknownKind(s, [...ROUTE_POLICIES, 'by-length:LO-HI=TARGET,...', 'by-class[:CLASS=TARGET,...]']) };
}

/** Targets a rule names that are not endpoints of the run (by-class alone names none: a class is matched by name). */
export function unknownRuleTargets(rule: RouteRule | undefined, names: readonly string[]): string[] {
  if (!rule) return [];
  const named = rule.kind === 'by-length' ? rule.bands.map((b) => b.target) : [...(rule.classes?.values() ?? [])];
  return [...new Set(named.filter((t) => !names.includes(t)))];
}

/** What a rule looks at: the request's counted prompt length, its class, and a trace line's named instance. */
export interface RuledRequest {
  inputTokens: number;
  class?: string;
  instance?: string;
}

/** Why a request went where it did: its trace instance, the rule, or the fallback policy (no instance or rule placed it). */
export type RouteReason = 'instance' | 'rule' | 'policy';

/**
 * The fixed target of a request, by name, and why; undefined when neither its instance nor the rule places it (the
 * fallback policy picks). A trace line's `instance` that names an endpoint wins over the rule.
 */
export function ruleTarget(rule: RouteRule | undefined, req: RuledRequest, names: ReadonlySet<string>): { target: string; reason: RouteReason } | undefined {
  if (req.instance !== undefined && names.has(req.instance)) return { target: req.instance, reason: 'instance' };
  if (!rule) return undefined;
  if (rule.kind === 'by-length') {
    const b = rule.bands.find((x) => req.inputTokens >= x.lo && req.inputTokens < x.hi);
    return b ? { target: b.target, reason: 'rule' } : undefined;
  }
  if (req.class === undefined) return undefined;
  const t = rule.classes ? rule.classes.get(req.class) : req.class;
  return t !== undefined && names.has(t) ? { target: t, reason: 'rule' } : undefined;
}
