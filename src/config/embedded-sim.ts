// The embedded simulated server's options (--sim-*): one schema and flag set for every command that starts it (run, sweep).
import { z } from 'zod';
import { flagTable, type FlagMetaTable } from '../util/flags.js';
import { FAULT_KINDS, faultOptionsSchema, parseFaultSpec, simServerOptionsSchema, type SimServerOptions } from '../sim/options.js';

const CORRUPT_ABOVE = /^corrupt-above=\d+$/;

/** A --sim-fault that is not corrupt-above=N: one server fault as `serve --fault` takes it (kind[:rate][,key=value...]). */
function serverFault(spec: string): { faults?: Record<string, unknown>; problems: string[] } {
  const problems: string[] = [];
  const f = parseFaultSpec(spec, '', problems);
  if (!f) return { problems };
  const r = faultOptionsSchema.safeParse({ [f[0]]: f[1] });
  if (!r.success) return { problems: r.error.issues.map((i) => `${spec}: ${i.path.join('.')}: ${i.message}`) };
  return { faults: r.data as Record<string, unknown>, problems };
}

export const EmbeddedSimSchema = z.object({
  simTimeScale: z.coerce.number().positive().optional(),
  simMaxNumSeqs: z.coerce.number().int().positive().optional(),
  simGpu: z.string().min(1).optional(),
  simModel: z.string().min(1).optional(),
  simReplicas: z.coerce.number().int().min(1).max(64).optional(),
  simRouter: simServerOptionsSchema.shape.router.unwrap().optional(),
  simAccuracy: z.coerce.number().min(0).max(1).optional(),
  simQuant: simServerOptionsSchema.shape.weightDtype,
  simSchedulingPolicy: simServerOptionsSchema.shape.schedulingPolicy.unwrap().optional(),
  simFault: z
    .string()
    .superRefine((v, ctx) => {
      if (CORRUPT_ABOVE.test(v)) return;
      const p = serverFault(v).problems;
      if (p.length) ctx.addIssue({ code: 'custom', message: `expected corrupt-above=N or a server fault kind[:rate][,key=value...] (kinds: ${Object.keys(FAULT_KINDS).join(', ')}): ${p.join('; ').trim()}` });
    })
    .optional(),
});

export type EmbeddedSimInput = z.input<typeof EmbeddedSimSchema>;
export type EmbeddedSimOptions = z.output<typeof EmbeddedSimSchema>;

// Defaults shown are the sim server's, which applies them (these fields stay optional so "given" can be told apart).
export const EMBEDDED_SIM_META = {
  simTimeScale: { arg: 'x', help: 'embedded simulated server only: simulated ms per wall-clock ms, e.g. 10 = ten times faster', defaultOf: simServerOptionsSchema.shape.timeScale },
  simMaxNumSeqs: { help: 'embedded simulated server only: max sequences per engine step', defaultOf: simServerOptionsSchema.shape.maxNumSeqs },
  simGpu: { arg: 'id', help: 'embedded simulated server only: GPU profile, e.g. a100-40gb', defaultOf: simServerOptionsSchema.shape.gpu },
  simModel: { arg: 'id', help: 'embedded simulated server only: model profile, e.g. qwen2.5-7b', defaultOf: simServerOptionsSchema.shape.modelProfile },
  simReplicas: { help: 'embedded simulated server only: N simulated engines behind one port, each with its own prefix cache (serve --replicas; docs/routing.md)', defaultOf: simServerOptionsSchema.shape.replicas },
  simRouter: { help: 'embedded simulated server only: the built-in router in front of --sim-replicas (serve --router)', defaultOf: simServerOptionsSchema.shape.router },
  simAccuracy: { arg: 'p', help: 'embedded simulated server only: oracle mode, probability that an item of a shipped eval set is answered right (docs/sim.md#oracle)', defaultText: "the model profile's" },
  simQuant: { help: 'embedded simulated server only: weight precision; also lowers the oracle accuracy by a set-dependent amount (docs/sim.md#oracle)', defaultText: "the model's released precision" },
  simSchedulingPolicy: { help: 'embedded simulated server only: fcfs, or priority: the body\'s "priority" orders the queue, lower first, and preempts (serve --scheduling-policy; with --priority-mix, docs/sim.md#batching-variants)', defaultOf: simServerOptionsSchema.shape.schedulingPolicy },
  simFault: { arg: 'spec', help: 'embedded simulated server only: corrupt-above=N (oracle fault: a reply whose first token is computed in an engine step with more than N sequences gets a wrong answer), or one server fault as serve --fault takes it, e.g. oom:0.1 or oom,every=5,fatal=true (docs/sim.md#fault-injection)' },
} satisfies FlagMetaTable<typeof EmbeddedSimSchema.shape>;

export const EMBEDDED_SIM_FLAGS = flagTable(EmbeddedSimSchema.shape, EMBEDDED_SIM_META);

/** Every --sim-* key, from the schema itself (a new flag cannot be left out of the checks that use this list). */
export const EMBEDDED_SIM_KEYS = Object.keys(EmbeddedSimSchema.shape) as readonly (keyof EmbeddedSimInput)[];

/** Problems with --sim-* given next to --base-url (they would silently do nothing). */
export function embeddedSimProblems(o: Partial<EmbeddedSimOptions>, baseUrl: string | undefined): string[] {
  const given = EMBEDDED_SIM_KEYS.filter((k) => o[k] !== undefined);
  if (baseUrl === undefined || !given.length) return [];
  return [`${given.map((k) => EMBEDDED_SIM_FLAGS[k].name).join(', ')}: only apply to the embedded simulated server (no --base-url)`];
}

/** The sim server options the --sim-* values set (the rest keep the server's defaults). */
export function embeddedServerOptions(o: Partial<EmbeddedSimOptions>): SimServerOptions {
  return {
    ...(o.simAccuracy !== undefined ? { accuracy: o.simAccuracy } : {}),
    ...(o.simQuant !== undefined ? { weightDtype: o.simQuant } : {}),
    ...(o.simFault !== undefined && CORRUPT_ABOVE.test(o.simFault) ? { corruptAbove: Number(o.simFault.split('=')[1]) } : {}),
    ...(o.simFault !== undefined && !CORRUPT_ABOVE.test(o.simFault) ? { faults: serverFault(o.simFault).faults } : {}),
    ...(o.simTimeScale !== undefined ? { timeScale: o.simTimeScale } : {}),
    ...(o.simMaxNumSeqs !== undefined ? { maxNumSeqs: o.simMaxNumSeqs } : {}),
    ...(o.simGpu !== undefined ? { gpu: o.simGpu } : {}),
    ...(o.simModel !== undefined ? { modelProfile: o.simModel } : {}),
    ...(o.simReplicas !== undefined ? { replicas: o.simReplicas } : {}),
    ...(o.simRouter !== undefined ? { router: o.simRouter } : {}),
    ...(o.simSchedulingPolicy !== undefined ? { schedulingPolicy: o.simSchedulingPolicy } : {}),
  };
}
