// The sim's multimodal encoder counters on /metrics (every flavor): encoder cache lookups and hits by media item,
// encoder FLOPs and seconds. tokenflood_sim_* names: the engines' own multimodal cache metrics differ by version.
import { Registry } from 'prom-client';
import type { EngineCounters } from '../engine/engine.js';
import { promKit } from './prom.js';

export function createMediaMetrics(modelName: string, counters: () => EngineCounters): Registry {
  const registry = new Registry();
  const k = promKit(registry, { model_name: modelName }, counters);
  k.mirrored('tokenflood_sim_mm_cache_queries_total', 'Encoder cache lookups: images, clips and videos in admitted requests.', (c) => c.mmCacheQueries);
  k.mirrored('tokenflood_sim_mm_cache_hits_total', 'Encoder cache hits: media items found by content hash and not re-encoded.', (c) => c.mmCacheHits);
  k.mirrored('tokenflood_sim_encoder_flops_total', 'FLOPs the vision/audio encoder spent (2 x tower parameters x patches of each miss).', (c) => c.encoderFlops);
  k.mirrored('tokenflood_sim_encoder_seconds_total', 'Engine time charged to the encoder before prefill, simulated seconds.', (c) => c.encoderMs / 1000);
  return registry;
}
