// Workload options (what each request asks for, and where prompts come from): schema and flag table. The single source of truth for them.
import { z } from 'zod';
import { flagTable } from '../util/flags.js';
import { parsedString } from '../util/parsed-string.js';
import { parseDurationS } from '../util/parse.js';
import { MAX_TIMER_MESSAGE, MAX_TIMER_S } from '../util/timer.js';
import { parseLengthDist } from '../dataset/distribution.js';
import { parseMix } from '../dataset/mix.js';
import { parsePriorityMix } from '../dataset/priority.js';
import { CORPORA } from '../dataset/corpus.js';
import { DEFAULT_MAX_MEDIA_BYTES } from '../dataset/media-load.js';
import { FIELD_KEYS } from '../dataset/items.js';
import { TRACE_FORMATS } from '../dataset/trace/registry.js';
import { MEDIA_DEFAULTS, parseCount, parseSizes } from '../dataset/media-plan.js';
import { AUDIO_CONTENTS, AUDIO_FORMATS, IMAGE_CONTENTS, IMAGE_FORMATS } from '../dataset/media-kinds.js';

/** A string checked by a parser that throws a one-line reason. */
const checked = (parse: (s: string) => unknown) =>
  z
    .union([z.number(), z.string().min(1)])
    .transform((v) => String(v).trim())
    .superRefine((v, ctx) => {
      try {
        parse(v);
      } catch (e) {
        ctx.addIssue({ code: 'custom', message: (e as Error).message });
      }
    });

/** How a trace's turns are spaced (docs/workloads.md#traces-and-agentic-sessions); a duration instead fixes the pause. */
export const THINK_TIME_MODES = ['recorded', 'gap', 'none'] as const;
export type ThinkTimeMode = (typeof THINK_TIME_MODES)[number];

/** A length: a number or a distribution spec (see docs/workloads.md); kept as its canonical string. */
const lengthSpec = (def: string) =>
  z
    .union([z.number().int().positive(), z.string().min(1)])
    .default(def)
    .transform((v) => String(v).trim())
    .superRefine((v, ctx) => {
      try {
        parseLengthDist(v);
      } catch (e) {
        ctx.addIssue({ code: 'custom', message: (e as Error).message });
      }
    });

/** Strings that may be given once as "a,b" or repeated, on the command line or as a YAML list. */
const stringList = z.preprocess((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]), z.array(z.string()));

const jsonObject = z.preprocess(
  (v) => {
    if (typeof v !== 'string') return v;
    try {
      return JSON.parse(v);
    } catch (e) {
      // Node quotes a stretch of the text ("...\"api_key\": sk-...\" is not valid JSON"): it may hold a credential.
      return { __bad: (e as Error).message.replace(/,\s*(\.\.\.)?".*$/s, '') };
    }
  },
  z
    .record(z.string(), z.unknown())
    .superRefine((o, ctx) => {
      if ('__bad' in o) ctx.addIssue({ code: 'custom', message: `expected a JSON object, e.g. '{"temperature":0}': ${String(o.__bad)}` });
    })
    .optional(),
);

export const WorkloadSchema = z.object({
  inputTokens: lengthSpec('512'),
  outputTokens: lengthSpec('128'),
  maxTokens: z.coerce.number().int().positive().optional(),
  mix: parsedString(parseMix),
  corpus: z.enum(CORPORA).default('en'),
  prefixTokens: z.coerce.number().int().min(0).default(0),
  prefixGroups: z.coerce.number().int().positive().default(1),
  ignoreEos: z.boolean().default(true),
  tools: z.coerce.number().int().min(0).max(128, 'expected at most 128 tool definitions').optional(),
  cacheBust: z.boolean().default(true),
  cacheAb: z.boolean().default(false),
  dataset: z.string().min(1).optional(),
  datasetFormat: z.enum(['auto', 'jsonl', 'sharegpt', 'csv']).default('auto'),
  datasetField: stringList.default([]),
  datasetOrder: z.enum(['sequential', 'random', 'by-user']).default('sequential'),
  datasetMode: z.enum(['reuse', 'once']).default('reuse'),
  strict: z.boolean().default(false),
  maxMediaBytes: z.coerce.number().int().positive().default(DEFAULT_MAX_MEDIA_BYTES),
  mediaHosts: stringList.default([]),
  thinkTime: z.preprocess(
    (v) => (v === undefined ? undefined : typeof v === 'string' && (THINK_TIME_MODES as readonly string[]).includes(v.trim()) ? v.trim() : parseDurationS(v)),
    z.union([z.enum(THINK_TIME_MODES), z.number({ message: 'expected recorded, gap, none, or a duration such as 2s, 500ms or a number of seconds' }).min(0).max(MAX_TIMER_S, MAX_TIMER_MESSAGE)]).default(0),
  ),
  replay: z.string().min(1).optional(),
  replaySpeed: z.coerce.number().positive().default(1),
  replayFormat: z.string().default('auto').refine((v) => TRACE_FORMATS.includes(v), { message: `expected one of ${TRACE_FORMATS.join(', ')}` }),
  traceBlockSize: z.coerce.number().int().positive().optional(),
  skipBadLines: z.boolean().default(false),
  sessions: z.coerce.number().int().positive().optional(),
  sessionAnswers: z.enum(['recorded', 'live']).default('recorded'),
  maxIdleGap: z.preprocess(
    (v) => (v === undefined ? undefined : parseDurationS(v)),
    z.number({ message: 'expected a duration such as 30s, 500ms or a number of seconds' }).min(0).max(MAX_TIMER_S, MAX_TIMER_MESSAGE).optional(),
  ),
  startAtFraction: z.coerce.number().min(0).lt(1).default(0),
  maxModelLen: z.coerce.number().int().positive().optional(),
  maxInputTokens: z.coerce.number().int().positive().optional(),
  maxOutputTokens: z.coerce.number().int().positive().optional(),
  extraBody: jsonObject,
  priorityMix: parsedString(parsePriorityMix),
  prioritySend: z.boolean().default(true),
  temperature: z.coerce.number().min(0).optional(),
  topP: z.coerce.number().gt(0).max(1).optional(),
  topK: z.coerce.number().int().optional(),
  seed: z.coerce.number().int().optional(),
  datasetSeed: z.coerce.number().int().optional(),
  tokenizer: z.string().min(1).default('cl100k_base'),
  images: checked(parseCount).optional(),
  imageSize: checked(parseSizes).default(MEDIA_DEFAULTS.imageSize),
  imageWidth: checked((s) => parseLengthDist(s)).optional(),
  imageHeight: checked((s) => parseLengthDist(s)).optional(),
  imageFormat: z.enum(IMAGE_FORMATS).default(MEDIA_DEFAULTS.imageFormat),
  imageQuality: z.coerce.number().int().min(1).max(100).default(MEDIA_DEFAULTS.imageQuality),
  imageContent: z.enum(IMAGE_CONTENTS).default(MEDIA_DEFAULTS.imageContent),
  videoFrames: z.coerce.number().int().positive().max(1024).optional(),
  videoSize: checked(parseSizes).default(MEDIA_DEFAULTS.videoSize),
  videoFps: z.coerce.number().positive().max(240).default(MEDIA_DEFAULTS.videoFps),
  videoFormat: z.enum(['frames', 'mp4']).default(MEDIA_DEFAULTS.videoFormat),
  audioSeconds: z.coerce.number().positive().max(3600).optional(),
  audioFormat: z.enum(AUDIO_FORMATS).default(MEDIA_DEFAULTS.audioFormat),
  audioSampleRate: z.coerce.number().int().min(8000).max(192000).default(MEDIA_DEFAULTS.audioSampleRate),
  audioChannels: z.coerce.number().int().min(1).max(2).default(MEDIA_DEFAULTS.audioChannels),
  audioContent: z.enum(AUDIO_CONTENTS).default(MEDIA_DEFAULTS.audioContent),
  mediaThreads: z.coerce.number().int().min(1).max(64).optional(),
});

export type WorkloadConfig = z.output<typeof WorkloadSchema>;

/** Seed of lengths, dataset order and arrivals when --dataset-seed is not given (prompt text is then fresh per run). */
export const DEFAULT_DATASET_SEED = 42;

/** The seed a run draws its workload from: --dataset-seed, else DEFAULT_DATASET_SEED. */
export const workloadSeed = (c: { datasetSeed?: number }): number => c.datasetSeed ?? DEFAULT_DATASET_SEED;

export const WORKLOAD_FLAGS = flagTable(WorkloadSchema.shape, {
  inputTokens: { arg: 'n|dist', help: 'prompt length in tokens, exact as counted by --tokenizer: N or fixed:N, uniform:MIN,MAX, normal:MEAN,SD, lognormal:mean=M,sd=S, exponential:MEAN, gamma:shape=K,scale=S, empirical:FILE, each with optional ,min=,max=' },
  outputTokens: { arg: 'n|dist', help: 'output length (max_tokens, and min_tokens with --ignore-eos): a number or a distribution like --input-tokens' },
  maxTokens: { help: 'send this max_tokens on every request, overriding --output-tokens, dataset and mix lengths (prefill-focused runs)' },
  mix: { arg: 'classes', help: "weighted request classes, e.g. 'short: 60% in 512 out 256; rag: 40% in 4096 out 256', or preset:short-short|long-short|short-long|long-long|classic" },
  corpus: { help: 'bundled text that synthetic prompts are cut from: en (English) or zh (Chinese)' },
  prefixTokens: { help: 'shared system prompt of N tokens before each synthetic prompt (the prefix-cache case; added to --input-tokens)' },
  prefixGroups: { arg: 'g', help: 'number of distinct shared prefixes; requests pick one at random' },
  tools: { arg: 'n', help: 'send n synthetic function definitions (tools, tool_choice auto) with every chat request, as an agent does; a tool-call answer counts as output (docs/workloads.md#tool-calls)' },
  ignoreEos: { help: 'do not send ignore_eos/min_tokens (for servers that reject them, e.g. hosted OpenAI)' },
  cacheBust: { help: 'no unique per-request nonce after the shared prefix (identical prompts can then hit the prefix cache)' },
  cacheAb: { help: 'send the same prompts twice, cold then warm (classes cold and warm), to show the prefix-cache effect' },
  dataset: { arg: 'file', help: 'prompts from a file: JSONL (prompt or messages per line), ShareGPT JSON, or CSV with --dataset-field' },
  datasetFormat: { help: 'format of --dataset; auto: from the extension and content' },
  datasetField: { arg: 'key=column,...', help: `CSV/JSONL field mapping, e.g. prompt=question,max_tokens=len; keys: ${FIELD_KEYS.join(', ')}; repeatable`, repeatable: true },
  datasetOrder: { help: "take dataset items in file order, at random (seeded), or by-user: each record's `user` in file order, users interleaved round-robin (a user's requests stay in order, as a cache-per-user workload sends them; docs/metrics.md#users-and-their-cache)" },
  datasetMode: { help: 'reuse: cycle through the data as long as the run lasts; once: send each item exactly once, then stop' },
  strict: { help: 'fail the run on any bad dataset line instead of skipping it with a warning' },
  maxMediaBytes: { arg: 'n', help: 'largest dataset media file (image, audio, video) in bytes; a larger one is bad media (exit 2) (docs/workloads.md#datasets-with-media)', defaultText: '20971520 (20 MiB)' },
  mediaHosts: { arg: 'host,...', help: 'hosts that dataset media URLs may name (host, host:port or *.domain); a URL to any other host is bad media (exit 2); repeatable', repeatable: true },
  thinkTime: { arg: 'time|mode', help: 'pause between the turns of a multi-turn conversation, e.g. 2s; with --replay: recorded (the trace\'s think time or delay, the default), gap (the recorded gap between sends), none, or a fixed duration' },
  replay: { arg: 'file|dir', help: 'trace replay: a trace file or a directory of session files (--replay-format); sent at the recorded times, sessions turn by turn (docs/workloads.md#traces-and-agentic-sessions)' },
  replaySpeed: { arg: 'x', help: 'replay time compression: 2 sends the trace twice as fast' },
  replayFormat: { arg: 'format', help: 'format of --replay: auto (detected from the first record, and said), tokenflood, mooncake, bailian, weka, tracelab, burstgpt, azure' },
  traceBlockSize: { arg: 'n', help: 'tokens per hash id of a --replay trace (--block-size is the engine\'s KV block in simulate)', defaultText: 'the format\'s own: Mooncake 512, Bailian 16, Weka the file\'s or 64, TraceLab 64' },
  skipBadLines: { help: 'skip bad --replay trace records (counted, the first five named) instead of failing before anything is sent' },
  sessions: { arg: 'n', help: 'closed loop over a --replay trace\'s sessions: N sessions in flight, each replaying its turns, recycled when the trace runs out' },
  sessionAnswers: { help: 'what a trace session\'s next turn carries as the previous answer: recorded (synthesized to its recorded length and blocks) or live (the server\'s real answer)' },
  maxIdleGap: { arg: 'time', help: 'cap on any recorded wait of a --replay trace (gap, think or tool time), e.g. 30s' },
  startAtFraction: { arg: 'f', help: 'start each --replay session at fraction F of its turns, after a warmup that sends the earlier context with one output token (recorded, excluded like --warmup)' },
  maxModelLen: { help: 'skip (and count) items whose input + max_tokens exceeds the model context N, instead of sending requests certain to fail' },
  maxInputTokens: { arg: 'n', help: "a vendor API's cap on prompt tokens: a synthetic workload that could send a longer prompt is refused before anything is sent (exit 2), a dataset or trace request over it is a bad line, handled as that input's bad lines are (docs/commands/run.md); the embedded server enforces it too (HTTP 400, OpenAI's context_length_exceeded)" },
  maxOutputTokens: { arg: 'n', help: "a vendor API's cap on max_tokens: a synthetic workload that could ask for more is refused before anything is sent (exit 2), a dataset or trace request over it is a bad line, as for --max-input-tokens; the embedded server enforces it too (HTTP 400, max_tokens is too large)" },
  extraBody: { arg: 'json', help: 'JSON object merged into every request body, e.g. \'{"chat_template_kwargs":{"enable_thinking":false}}\'' },
  temperature: { arg: 't', help: 'sampling temperature, passed through' },
  topP: { arg: 'p', help: 'nucleus sampling top_p, passed through' },
  topK: { arg: 'k', help: 'top_k, passed through' },
  priorityMix: { arg: 'mix', help: 'per-request priority classes as PRIORITY:WEIGHT, e.g. 0:0.2,10:0.8 (20% priority 0, 80% priority 10; lower runs first under vLLM/SGLang --scheduling-policy priority), drawn per request from the workload seed; sent as the body\'s "priority" (openai-chat, openai-completions); a dataset line\'s own priority wins; summary.json by_priority (docs/workloads.md#request-priority)' },
  prioritySend: { help: 'draw and record the --priority-mix classes but send no "priority" (the FCFS arm of an A/B: vLLM refuses a priority other than 0 unless started with --scheduling-policy priority)' },
  seed: { help: 'sampling seed sent to the server, passed through' },
  datasetSeed: { help: 'seed of the workload and arrival generator: same seed, same run, prompt text included (a second run then finds its prompts in a prefix cache). Without it, lengths, order and arrivals are seeded with 42 and prompt text is fresh per run (docs/workloads.md#fresh-prompts)', defaultText: '42, prompts fresh per run' },
  images: { arg: 'n|dist', help: 'synthetic images per request (synthetic prompts only): N (0 allowed), uniform:MIN,MAX (MIN may be 0), or any --input-tokens distribution (docs/workloads.md#images-video-and-audio)' },
  imageSize: { arg: 'WxH[,WxH…]', help: 'size of each synthetic image; several sizes are picked uniformly per image' },
  imageWidth: { arg: 'px|dist', help: 'width of each synthetic image as a distribution (like --input-tokens, e.g. uniform:256,1024), drawn per image; with --image-height, replaces --image-size' },
  imageHeight: { arg: 'px|dist', help: 'height of each synthetic image as a distribution, drawn per image; with --image-width' },
  imageFormat: { help: 'encoding of synthetic images and video frames: jpeg (jpeg-js) or png (fast-png)' },
  imageQuality: { arg: 'q', help: 'JPEG quality 1-100 of synthetic images and frames' },
  imageContent: { help: 'pixels of synthetic images: gradient (seeded per request), noise (seeded per request, incompressible) or solid (identical bytes every request, to hit a server\'s multimodal cache on purpose)' },
  videoFrames: { arg: 'n', help: 'a synthetic video of N frames per request, sent as N image parts (--image-format, --image-content)' },
  videoSize: { arg: 'WxH', help: 'size of each synthetic video frame' },
  videoFps: { arg: 'f', help: 'frame rate recorded with the synthetic video (frames are sent as images)' },
  videoFormat: { help: 'frames: the video as image parts; mp4 (a video_url clip) is refused: no pure-JS H.264 encoder ships with tokenflood' },
  audioSeconds: { arg: 's', help: 'a synthetic audio clip of S seconds per request, sent as an OpenAI input_audio part' },
  audioFormat: { help: 'encoding of synthetic audio: wav (16-bit PCM) or mp3 (lamejs)' },
  audioSampleRate: { arg: 'hz', help: 'sample rate of synthetic audio' },
  audioChannels: { arg: 'n', help: 'channels of synthetic audio: 1 or 2' },
  audioContent: { help: 'synthetic audio signal: tone (a sine, pitch seeded per request) or noise' },
  mediaThreads: { arg: 'n', help: 'worker threads that generate and encode synthetic media ahead of the sends (never the measuring thread)', defaultText: 'one per core beyond the first, 1 to 4' },
  tokenizer: { arg: 'name|path', help: 'tokenizer that counts prompt tokens: cl100k_base, o200k_base, a Hugging Face tokenizer folder / tokenizer.json, or a Hugging Face id (org/name) shipped or in the local hub cache, never downloaded (docs/vllm-compat.md#tokenizer)' },
});
