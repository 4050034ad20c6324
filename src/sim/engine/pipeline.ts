// Pipeline parallelism: layers and weights split over `pp` stages; a step's time from one stage's cost and the activation hand-offs.
import type { EngineSpec } from './config.js';
import { stepCost, type StepCost, type StepShape } from './cost.js';
import { stageLayers } from './features.js';


/** The spec of one stage: its layers, and its share of the parameters (weights and KV per GPU are already per stage). */
export function stageSpec(spec: EngineSpec): EngineSpec {
  const pp = spec.features.pp;
  const layers = stageLayers(spec.model.layers, pp);
  const f = layers / spec.model.layers;
  const p = spec.params;
  return {
    ...spec,
    model: { ...spec.model, layers },
    params: { ...p, shared: p.shared * f, total: p.total * f, activePerToken: p.activePerToken * f },
  };
}

/** A step shape divided evenly over `m` microbatches or instances. */
export const splitShape = (s: StepShape, m: number): StepShape => ({
  requests: s.requests / m, newTokens: s.newTokens / m, contextTokens: s.contextTokens / m, attentionPairs: s.attentionPairs / m,
  decodePairs: (s.decodePairs ?? 0) / m,
});

/**
 * With pp stages and m = min(pp, requests) microbatches of batch/m: every stage works on each microbatch in turn, so a
 * step (every scheduled sequence advances once) takes max(m, pp) · stage_time(batch/m) + (pp − 1) · hand-off(batch/m),
 * hand-off = link_latency + newTokens/m · hidden · 2 B / link_bw. Overheads are paid once per step.
 * pp = 1 is exactly stepCost.
 */
export function engineStepCost(spec: EngineSpec, shape: StepShape, stage?: EngineSpec): StepCost {
  const pp = spec.features.pp;
  if (pp <= 1) return stepCost(spec, shape);
  const m = Math.max(1, Math.min(pp, shape.requests));
  const sub = splitShape(shape, m);
  const st = stepCost(stage ?? stageSpec(spec), sub);
  const handOffMs = spec.gpu.linkLatencyUs / 1000 + ((sub.newTokens * spec.model.hidden * 2) / (spec.gpu.linkGBps * 1e9)) * 1000;
  const beats = Math.max(m, pp);
  const overheadMs = stepCost(spec, { ...shape, newTokens: 0, contextTokens: 0, attentionPairs: 0 }).overheadMs;
  const commMs = beats * st.commMs + (pp - 1) * handOffMs;
  const linearMs = beats * st.linearMs;
  const attentionMs = beats * st.attentionMs;
  const moeMs = beats * st.moeMs;
  return {
    flops: st.flops * m * pp, bytes: st.bytes * m * pp, computeMs: beats * st.computeMs, memoryMs: beats * st.memoryMs,
    linearMs, attentionMs, commMs, moeMs, overheadMs,
    totalMs: linearMs + attentionMs + commMs + moeMs + overheadMs,
  };
}

/**
 * Prefill of `tokens` fresh tokens for one request on an idle instance, in chunks of maxNumBatchedTokens:
 * Σ step(chunk on top of what is done). The disaggregated prefill pool and the capacity planner both use it.
 */
export function prefillOnlyMs(spec: EngineSpec, tokens: number): number {
  let done = 0;
  let ms = 0;
  while (done < tokens) {
    const n = Math.min(spec.maxNumBatchedTokens, tokens - done);
    ms += engineStepCost(spec, { requests: 1, newTokens: n, contextTokens: done, attentionPairs: n * done + (n * (n + 1)) / 2 }).totalMs;
    done += n;
  }
  return ms;
}
