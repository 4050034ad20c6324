import { describe, it, expect } from 'vitest';
import { parseRouteSpec, parseTokenBound, ruleTarget, unknownRuleTargets, type RouteSpec } from './route-rules.js';
import { createRouteTally } from './route-tally.js';

const names = new Set(['t1', 't2', 'rag']);
const spec = (s: string): RouteSpec => {
  const r = parseRouteSpec(s);
  if ('problem' in r) throw new Error(r.problem);
  return r;
};

describe('--route rules', () => {
  it('parses policies, length bands (k = 1024) and class maps', () => {
    expect(spec('least-in-flight')).toEqual({ policy: 'least-in-flight' });
    expect(parseTokenBound('8k')).toBe(8192);
    expect(parseTokenBound('8000')).toBe(8000);
    expect(spec('by-length:8k-=t2,0-8k=t1').rule).toEqual({ kind: 'by-length', bands: [{ lo: 0, hi: 8192, target: 't1' }, { lo: 8192, hi: Infinity, target: 't2' }] });
    expect(spec('by-length:0-100=t1,100+=t2').rule).toMatchObject({ bands: [{ hi: 100 }, { lo: 100, hi: Infinity }] });
    expect(spec('by-class:rag=t2,chat=t1').rule).toEqual({ kind: 'by-class', classes: new Map([['rag', 't2'], ['chat', 't1']]) });
    expect(spec('by-class').rule).toEqual({ kind: 'by-class', classes: undefined });
  });

  it('refuses bad specs with the item named', () => {
    const problem = (s: string) => (parseRouteSpec(s) as { problem: string }).problem;
    expect(problem('by-length:0-8k=t1,4k-=t2')).toMatch(/"4k-=t2": overlaps the band 0-8192=t1/);
    expect(problem('by-length:8k-4k=t1')).toMatch(/upper bound must be above/);
    expect(problem('by-length:0-x=t1')).toMatch(/token counts/);
    expect(problem('by-length:0-8k')).toMatch(/expected LO-HI=TARGET/);
    expect(problem('by-class:rag')).toMatch(/expected CLASS=TARGET/);
    expect(problem('nearest')).toMatch(/unknown kind "nearest" \(valid: round-robin.*by-length/);
    expect(unknownRuleTargets(spec('by-length:0-8k=t1,8k-=t9').rule, ['t1', 't2'])).toEqual(['t9']);
  });

  it('places a request by its instance first, then the rule; the rest fall to the policy', () => {
    const len = spec('by-length:0-8k=t1,8k-=t2').rule;
    expect(ruleTarget(len, { inputTokens: 8191 }, names)).toEqual({ target: 't1', reason: 'rule' });
    expect(ruleTarget(len, { inputTokens: 8192 }, names)).toEqual({ target: 't2', reason: 'rule' });
    expect(ruleTarget(len, { inputTokens: 10, instance: 't2' }, names)).toEqual({ target: 't2', reason: 'instance' });
    expect(ruleTarget(spec('by-length:100-200=t1').rule, { inputTokens: 10 }, names)).toBeUndefined();
    const cls = spec('by-class').rule;
    expect(ruleTarget(cls, { inputTokens: 1, class: 'rag' }, names)).toEqual({ target: 'rag', reason: 'rule' });
    expect(ruleTarget(cls, { inputTokens: 1, class: 'chat' }, names)).toBeUndefined();
    expect(ruleTarget(undefined, { inputTokens: 1, instance: 'gone' }, names)).toBeUndefined();
  });

  it('tallies placements and hits per instance', () => {
    const t = createRouteTally('round-robin', undefined, ['t1', 't2']);
    const base = { messages: [], prompt: '', inputTokens: 5, maxTokens: 1 };
    expect(t.fixed({ ...base, instance: 't2' })).toBe(1);
    expect(t.fixed({ ...base, instance: 't2' })).toBe(1);
    expect(t.fixed({ ...base, instance: 'x9' })).toBeUndefined();
    expect(t.fixed(base)).toBeUndefined();
    expect(t.summary()).toEqual({ route: 'round-robin', placed: { instance: 2, rule: 0, policy: 2 }, instances: { t2: 2 }, unknown_instances: { x9: 1 } });
  });
});
