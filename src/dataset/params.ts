// What the workloads read from the run config. Declared here so that config/ (whose RunConfig satisfies it) depends on dataset/, never the reverse.
import type { CorpusName } from './corpus.js';
import type { DatasetFormat } from './load.js';
import type { MediaParams } from './media-plan.js';

/** The run-config fields the workloads use; a RunConfig is one (the compiler checks it where run and simulate build the workload). */
export interface WorkloadParams extends Partial<MediaParams> {
  /** Chat messages or a flat prompt: decides how prompts are built and counted. */
  endpoint: 'chat' | 'completions';
  /** Open loop when set: multi-turn sessions then wait for their previous turn instead of pacing the slot. */
  rate?: number;
  /** Measured requests (cache A/B sends half cold, half warm) and warmup requests sent first. */
  requests?: number;
  warmup: number;
  /** Length specs (a number or a distribution, canonical strings) and the overrides. */
  inputTokens: string;
  outputTokens: string;
  maxTokens?: number;
  mix?: string;
  maxModelLen?: number;
  /** A vendor API's separate caps (--max-input-tokens, --max-output-tokens): checked before anything is sent. */
  maxInputTokens?: number;
  maxOutputTokens?: number;
  /** Synthetic prompts. */
  corpus: CorpusName;
  prefixTokens: number;
  prefixGroups: number;
  cacheBust: boolean;
  cacheAb: boolean;
  /** Dataset files. */
  dataset?: string;
  datasetFormat: DatasetFormat;
  datasetField: string[];
  datasetOrder: 'sequential' | 'random' | 'by-user';
  datasetMode: 'reuse' | 'once';
  strict: boolean;
  /** Dataset media checks: largest file, and the hosts remote media URLs may name (comma lists, possibly repeated). */
  maxMediaBytes?: number;
  mediaHosts?: string[];
  /** Seconds between the turns of a conversation; for a --replay trace also recorded, gap or none (0 = recorded there). */
  thinkTime: number | 'recorded' | 'gap' | 'none';
  /** Trace replay: the file or directory, its format, and how sessions are replayed (docs/workloads.md#traces-and-agentic-sessions). */
  replay?: string;
  replaySpeed: number;
  replayFormat: string;
  traceBlockSize?: number;
  skipBadLines: boolean;
  sessions?: number;
  sessionAnswers: 'recorded' | 'live';
  /** Seconds: cap on any recorded wait of a trace. */
  maxIdleGap?: number;
  startAtFraction: number;
  /** --priority-mix: each request's priority class (dataset/priority.ts); a data line's own `priority` wins. */
  priorityMix?: string;
  /** --dataset-seed: seeds trace prompt blocks too (DEFAULT_DATASET_SEED when absent). */
  datasetSeed?: number;
  /** Fresh prompts: the run id when --dataset-seed is not given (docs/workloads.md#fresh-prompts); none keeps them seeded. */
  promptSalt?: string;
}
