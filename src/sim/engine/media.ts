// Multimodal rules of the catalog's VLM and audio models: how many prompt tokens an image or a clip becomes, and
// the encoder (vision / audio tower) work to produce them. Pure; sources per entry and in docs/sim.md#multimodal.

/** How one model turns images into prompt tokens. */
export type VisionRule =
  /** Qwen2-VL / Qwen2.5-VL: resize to multiples of `unit` px within [minPixels, maxPixels]; one token per unit². */
  | { kind: 'qwen-resize'; unit: number; patch: number; minPixels: number; maxPixels: number }
  /** A fixed token count per image after a resize to `size`² (LLaVA-1.5, Gemma 3): encoder sees `patches`. */
  | { kind: 'fixed'; tokens: number; size: number; patches: number }
  /** InternVL dynamic tiling: 1..maxTiles tiles of `tile` px (+ a thumbnail tile when > 1), `tokensPerTile` each. */
  | { kind: 'internvl-tiles'; tile: number; maxTiles: number; tokensPerTile: number; patchesPerTile: number }
  /** Llama 3.2 Vision: up to maxTiles tiles of `tile` px into cross-attention; `promptTokens` in the prompt. */
  | { kind: 'mllama-tiles'; tile: number; maxTiles: number; patchesPerTile: number; promptTokens: number };

export interface VisionSpec {
  rule: VisionRule;
  /** Marker tokens around each image (e.g. <|vision_start|><|vision_end|>), counted in the prompt, not in image_tokens. */
  markers: number;
  /** Vision tower parameters (encoder FLOPs ≈ 2 · params · patches). */
  towerParams: number;
  source: string;
}

export interface AudioSpec {
  /** Encoder frames per second of audio fed to the tower (Whisper: 50/s, 1,500 per 30 s window). */
  encoderFramesPerSec: number;
  /** Prompt tokens per encoder frame (Qwen2-Audio pools 2:1 → 25 tokens/s). */
  tokensPerFrame: number;
  /** Audio is processed in windows of this many seconds, each padded to full length (Whisper: 30). */
  windowSec: number;
  /** Longest audio the processor keeps (s); undefined = any length (in windows). */
  maxSec?: number;
  markers: number;
  /** Encoder-decoder (Whisper): the frames feed cross-attention, not the prompt. */
  crossAttention?: boolean;
  towerParams: number;
  source: string;
}

export interface MediaSpec {
  vision?: VisionSpec;
  audio?: AudioSpec;
}

const QWEN_RESIZE: VisionRule = { kind: 'qwen-resize', unit: 28, patch: 14, minPixels: 56 * 56, maxPixels: 28 * 28 * 16384 };
// Qwen2.5-VL's ViT (32 layers, hidden 1280, window attention): ~670M parameters (Qwen2.5-VL technical report, Table 1).
const QWEN25_VIT = 670e6;
// Whisper-large-v3's encoder: 32 layers, d_model 1280 (~635M of its 1.55B parameters); 128 mel bins at 100 frames/s,
// stride-2 conv → 1,500 frames per 30 s.
const WHISPER_ENCODER = 635e6;

export const MEDIA_MODELS: Record<string, MediaSpec> = {
  'qwen2.5-vl-7b': { vision: { rule: QWEN_RESIZE, markers: 2, towerParams: QWEN25_VIT, source: 'Qwen/Qwen2.5-VL-7B-Instruct preprocessor_config.json (min_pixels 3136, max_pixels 12845056, patch_size 14, merge_size 2)' } },
  'qwen2.5-vl-72b': { vision: { rule: QWEN_RESIZE, markers: 2, towerParams: QWEN25_VIT, source: 'Qwen/Qwen2.5-VL-72B-Instruct preprocessor_config.json (same ViT and processor as 7B)' } },
  // CLIP ViT-L/14 at 336 px: 24×24 = 576 patch tokens (+ CLS, dropped), ~304M parameters; the <image> placeholder
  // is replaced by the 576 tokens (no markers).
  'llava-1.5-7b': { vision: { rule: { kind: 'fixed', tokens: 576, size: 336, patches: 577 }, markers: 0, towerParams: 304e6, source: 'llava-hf/llava-1.5-7b-hf config.json (vision_config: image_size 336, patch_size 14; image_seq_length 576)' } },
  // SigLIP So400m at 896 px: 64×64 = 4,096 patches average-pooled to 256 tokens; <start_of_image> and <end_of_image>.
  'gemma-3-27b': { vision: { rule: { kind: 'fixed', tokens: 256, size: 896, patches: 4096 }, markers: 2, towerParams: 417e6, source: 'google/gemma-3-27b-it config.json (mm_tokens_per_image 256, vision_config image_size 896, patch_size 14)' } },
  'gemma-3-12b': { vision: { rule: { kind: 'fixed', tokens: 256, size: 896, patches: 4096 }, markers: 2, towerParams: 417e6, source: 'google/gemma-3-12b-it config.json (mm_tokens_per_image 256)' } },
  // ViT-H/14 at 560 px tiles (40×40 patches + CLS = 1,601 per tile), up to 4 tiles, ~0.9B parameters incl. the global
  // layers; the image enters the LM through cross-attention, the prompt holds one <|image|> token.
  'llama-3.2-11b-vision': { vision: { rule: { kind: 'mllama-tiles', tile: 560, maxTiles: 4, patchesPerTile: 1601, promptTokens: 1 }, markers: 0, towerParams: 0.9e9, source: 'meta-llama/Llama-3.2-11B-Vision-Instruct config.json (vision_config image_size 560, patch_size 14, max_num_tiles 4)' } },
  // InternViT-300M-448px-V2.5: 448 px tiles, 32×32 patches pixel-shuffled (0.5) to 256 tokens; dynamic tiling
  // 1..12 tiles plus a thumbnail; <img> and </img> around each image.
  'internvl3-8b': { vision: { rule: { kind: 'internvl-tiles', tile: 448, maxTiles: 12, tokensPerTile: 256, patchesPerTile: 1024 }, markers: 2, towerParams: 300e6, source: 'OpenGVLab/InternVL3-8B config.json (force_image_size 448, downsample_ratio 0.5, max_dynamic_patch 12, use_thumbnail)' } },
  'whisper-large-v3': { audio: { encoderFramesPerSec: 50, tokensPerFrame: 1, windowSec: 30, markers: 0, crossAttention: true, towerParams: WHISPER_ENCODER, source: 'openai/whisper-large-v3 config.json (max_source_positions 1500, num_mel_bins 128; 30 s windows)' } },
  // Whisper-large-v3 encoder, then 2:1 average pooling: (frames - 2) / 2 + 1 ≈ 25 tokens per second; the feature
  // extractor keeps 30 s; <|audio_bos|> and <|audio_eos|> around each clip.
  'qwen2-audio-7b': { audio: { encoderFramesPerSec: 50, tokensPerFrame: 0.5, windowSec: 30, maxSec: 30, markers: 2, towerParams: WHISPER_ENCODER, source: 'Qwen/Qwen2-Audio-7B-Instruct config.json (audio_config: Whisper-large-v3 encoder) and processor (avg-pool stride 2, chunk_length 30)' } },
};

/**
 * Text-only profiles still accept media in the sim (so the default model can be load-tested with images): they
 * use Qwen2.5-VL's vision rule and Whisper's encoder for audio, as documented in docs/sim.md#multimodal.
 */
export const FALLBACK_MEDIA: Required<MediaSpec> = { vision: MEDIA_MODELS['qwen2.5-vl-7b'].vision!, audio: MEDIA_MODELS['qwen2-audio-7b'].audio! };

export function mediaSpecFor(modelId: string): Required<MediaSpec> {
  const m = MEDIA_MODELS[modelId];
  return { vision: m?.vision ?? FALLBACK_MEDIA.vision, audio: m?.audio ?? FALLBACK_MEDIA.audio };
}

/** Tokens one media item becomes: `tokens` (usage image/audio tokens), `promptTokens` (what it adds to the prompt), `patches` for the encoder. */
export interface MediaTokens {
  tokens: number;
  markers: number;
  /** Tokens added to the prompt: tokens + markers, or only markers/placeholders for cross-attention models. */
  promptTokens: number;
  /** Encoder input positions (patches or audio frames) the tower runs over. */
  patches: number;
  /** Encoder FLOPs: 2 · tower params · patches. */
  flops: number;
}

/** Qwen2-VL smart_resize: the (height, width) the processor resizes to. */
export function qwenResize(height: number, width: number, unit: number, minPixels: number, maxPixels: number): [number, number] {
  let h = Math.max(unit, Math.round(height / unit) * unit);
  let w = Math.max(unit, Math.round(width / unit) * unit);
  if (h * w > maxPixels) {
    const beta = Math.sqrt((height * width) / maxPixels);
    h = Math.max(unit, Math.floor(height / beta / unit) * unit);
    w = Math.max(unit, Math.floor(width / beta / unit) * unit);
  } else if (h * w < minPixels) {
    const beta = Math.sqrt(minPixels / (height * width));
    h = Math.ceil((height * beta) / unit) * unit;
    w = Math.ceil((width * beta) / unit) * unit;
  }
  return [h, w];
}

/** InternVL's dynamic_preprocess: the tile grid (cols, rows) whose aspect ratio is closest to the image's. */
export function internvlGrid(width: number, height: number, tile: number, maxTiles: number): [number, number] {
  const ratios: [number, number][] = [];
  for (let n = 1; n <= maxTiles; n++) for (let i = 1; i <= n; i++) for (let j = 1; j <= n; j++) if (i * j <= maxTiles && i * j >= 1 && !ratios.some((r) => r[0] === i && r[1] === j)) ratios.push([i, j]);
  ratios.sort((a, b) => a[0] * a[1] - b[0] * b[1]);
  const aspect = width / height;
  let best: [number, number] = [1, 1];
  let bestDiff = Infinity;
  for (const r of ratios) {
    const diff = Math.abs(aspect - r[0] / r[1]);
    if (diff < bestDiff) {
      bestDiff = diff;
      best = r;
    } else if (diff === bestDiff && width * height > 0.5 * tile * tile * r[0] * r[1]) best = r;
  }
  return best;
}

/** Llama 3.2 Vision tiles: the smallest grid of ≤ maxTiles tiles that covers the image (approximates its canvas fit). */
export function mllamaTiles(width: number, height: number, tile: number, maxTiles: number): number {
  const cols = Math.ceil(width / tile);
  const rows = Math.ceil(height / tile);
  if (cols * rows <= maxTiles) return cols * rows;
  // Downscaled to fit: keep the aspect, the most tiles that fit.
  let best = 1;
  for (let c = 1; c <= maxTiles; c++) for (let r = 1; c * r <= maxTiles; r++) if (c * r > best && Math.abs(c / r - width / height) <= Math.abs(cols / rows - width / height) + 1) best = c * r;
  return best;
}

/** Image tokens of one image of width × height px for `modelId` (text-only profiles: the fallback rule). */
export function imageTokens(modelId: string, width: number, height: number): MediaTokens {
  const v = mediaSpecFor(modelId).vision;
  const r = v.rule;
  let tokens: number;
  let patches: number;
  switch (r.kind) {
    case 'qwen-resize': {
      const [h, w] = qwenResize(height, width, r.unit, r.minPixels, r.maxPixels);
      tokens = (h / r.unit) * (w / r.unit);
      patches = (h / r.patch) * (w / r.patch);
      break;
    }
    case 'fixed':
      tokens = r.tokens;
      patches = r.patches;
      break;
    case 'internvl-tiles': {
      const [c, rows] = internvlGrid(width, height, r.tile, r.maxTiles);
      const tiles = c * rows + (c * rows > 1 ? 1 : 0);
      tokens = tiles * r.tokensPerTile;
      patches = tiles * r.patchesPerTile;
      break;
    }
    case 'mllama-tiles': {
      const tiles = mllamaTiles(width, height, r.tile, r.maxTiles);
      tokens = r.promptTokens;
      patches = tiles * r.patchesPerTile;
      break;
    }
  }
  const promptTokens = tokens + v.markers;
  return { tokens, markers: v.markers, promptTokens, patches, flops: 2 * v.towerParams * patches };
}

/** Audio tokens of a clip of `seconds` for `modelId`. */
export function audioTokens(modelId: string, seconds: number): MediaTokens {
  const a = mediaSpecFor(modelId).audio;
  const kept = a.maxSec !== undefined ? Math.min(seconds, a.maxSec) : seconds;
  const windows = Math.max(1, Math.ceil(kept / a.windowSec - 1e-9));
  // The encoder always runs over whole (padded) windows; the tokens kept are those of the audio itself (Whisper: all).
  const patches = windows * a.windowSec * a.encoderFramesPerSec;
  const tokens = a.tokensPerFrame === 1 ? patches : Math.max(1, Math.floor(kept * a.encoderFramesPerSec * a.tokensPerFrame));
  return { tokens, markers: a.markers, promptTokens: (a.crossAttention ? 0 : tokens) + a.markers, patches, flops: 2 * a.towerParams * patches };
}

/** Video: `frames` frames of width × height; Qwen-style temporal patch 2 (two frames per token grid), else every frame an image. */
export function videoTokens(modelId: string, width: number, height: number, frames: number): MediaTokens {
  const v = mediaSpecFor(modelId).vision;
  const one = imageTokens(modelId, width, height);
  const groups = v.rule.kind === 'qwen-resize' ? Math.max(1, Math.ceil(frames / 2)) : Math.max(1, frames);
  // Qwen: each temporal group of 2 frames is one grid of 3D patches (14×14×2); others encode every frame.
  return { tokens: groups * one.tokens, markers: v.markers, promptTokens: groups * (one.promptTokens - v.markers) + v.markers, patches: groups * one.patches, flops: groups * one.flops };
}
