// Images, video and audio (issue 28): media totals and rates, the client's encode cost, and latency by image count.
import type { DistStats, Percentiles } from './stats.js';
import { distStatsCi } from './ci95.js';
import type { RequestRecord } from './record.js';
import { MEDIA_METRICS, type MetricDef } from './registry/index.js';

/** Image counts from this one on share one row, `8+` (docs/metrics.md#images-video-and-audio). */
export const IMAGES_POOL_FROM = 8;

/** The by_images key of a request's image count: "0" … "7", then "8+". */
export const imagesKey = (n: number): string => (n >= IMAGES_POOL_FROM ? `${IMAGES_POOL_FROM}+` : String(n));

/**
 * Encoding counts as the client's limit when the encode time of the measured requests is more than this share of
 * the measured window (one core busy encoding for half the run): the send interval is then mostly encode time.
 */
export const ENCODE_SHARE_WARN = 0.5;
/** With media encoded ahead on worker threads: the share of requests with media that waited for it above which the run was encode-bound. */
export const WAITED_SHARE_WARN = 0.05;

/** One image count's figures: measured requests, the ok ones, and TTFT/TPOT/ITL/E2E of the ok ones (MEDIA_METRICS). */
export interface ImagesBlock {
  requests: number;
  ok: number;
  ttft_ms: DistStats;
  tpot_ms: DistStats;
  itl_ms: DistStats;
  e2e_ms: DistStats;
}

/** The client's cost of the media: encode time and the bytes it sent per second. */
export interface MediaClient {
  /** Per media request: ms the client spent encoding its media (media_encode_ms). */
  encode_ms: DistStats;
  /** Σ media_encode_ms (CPU-ms, whichever thread did the encoding). */
  encode_total_ms: number;
  /** encode_total_ms / (duration_s × 1000): the share of the measured window spent encoding (> 1: more than one core). */
  encode_share: number | null;
  /** media_bytes / duration_s: encoded media bytes sent per second (before base64). */
  media_bytes_per_s: number | null;
  /** Media encoded ahead on worker threads: requests that had to wait for theirs (from the workload). */
  media_waited?: number;
  /**
   * Threaded media: media_waited / requests with media > WAITED_SHARE_WARN; otherwise (inline, or no word from the
   * workload) encode_share > ENCODE_SHARE_WARN.
   */
  encode_bound: boolean;
  /** One plain sentence when encode_bound. */
  warnings: string[];
}

/** summary.json `media`: present when records carry media fields. Totals are over the measured records (warmup left out). */
export interface MediaSummary {
  /** Measured requests that carried media. */
  requests_with_media: number;
  images: number;
  video_frames: number;
  audio_seconds: number;
  image_pixels: number;
  media_bytes: number;
  /** The window the rates divide by: (last response end − first send) / 1000 over the measured records of every phase (= duration_s without ramps). */
  duration_s: number;
  images_per_s: number | null;
  video_frames_per_s: number | null;
  audio_seconds_per_s: number | null;
  /** image_pixels / 10^6 / duration_s. */
  megapixels_per_s: number | null;
  /** media_bytes / 10^6 / duration_s (MB = 10^6 bytes). */
  media_mb_per_s: number | null;
  /** Σ request_bytes of the requests with media: their bodies as sent (base64 media and the JSON around it). */
  request_bytes: number;
  /** request_bytes / 10^6 / duration_s: the practice's request MB/s. */
  request_mb_per_s: number | null;
  /** Σ image_tokens / requests whose server reported them; null when none did. `image_tokens_reported` counts them. */
  mean_image_tokens: number | null;
  image_tokens_reported: number;
  mean_audio_tokens: number | null;
  audio_tokens_reported: number;
  client: MediaClient;
}

export interface MediaFigures {
  media?: MediaSummary;
  by_images?: Record<string, ImagesBlock>;
}

/** Where one metric's values go: every value kept, or (ITL) exact up to a limit, then a histogram (the aggregator's stores). */
export interface ValueStore {
  add(x: number): void;
  stats(asked?: readonly number[]): DistStats;
}

/** Every value kept: the default store. */
class ExactValues implements ValueStore {
  private readonly v: number[] = [];
  add(x: number): void {
    this.v.push(x);
  }
  stats(asked?: readonly number[]): DistStats {
    return distStatsCi(this.v, asked);
  }
}

class ImagesAcc {
  requests = 0;
  ok = 0;
  readonly cols: ValueStore[];
  constructor(store: (def: MetricDef) => ValueStore) {
    this.cols = MEDIA_METRICS.map(store);
  }
}

const hasMedia = (r: RequestRecord): boolean => r.images !== undefined || r.media_bytes !== undefined || r.video_frames !== undefined || r.audio_seconds !== undefined;
const rate = (x: number, s: number): number | null => (s > 0 ? x / s : null);

/** Collects the measured records' media; the result does not depend on the order they arrive in. */
export class MediaAggregator {
  /** `store`: where a metric's values go (the summary passes its own stores, so by_images' ITL is bounded as the run's is). */
  constructor(private readonly store: (def: MetricDef) => ValueStore = () => new ExactValues()) {}
  private readonly byImages = new Map<string, ImagesAcc>();
  private withMedia = 0;
  private images = 0;
  private frames = 0;
  private audioS = 0;
  private pixels = 0;
  private bytes = 0;
  private requestBytes = 0;
  private readonly encode: number[] = [];
  private encodeTotal = 0;
  private readonly tokens = { image: 0, imageN: 0, audio: 0, audioN: 0 };
  /** The measured window, every phase: first send to last response end over the measured records (duration_s's formula). */
  private start = Infinity;
  private end = -Infinity;

  add(r: RequestRecord): void {
    if (r.warmup) return;
    this.start = Math.min(this.start, r.sent_at_ms);
    this.end = Math.max(this.end, r.sent_at_ms + (r.end_ms ?? 0));
    const k = imagesKey(r.images ?? 0);
    let a = this.byImages.get(k);
    if (!a) this.byImages.set(k, (a = new ImagesAcc(this.store)));
    a.requests++;
    if (r.status === 'ok') {
      a.ok++;
      MEDIA_METRICS.forEach((d, i) => put(d, r, a.cols[i]));
    }
    if (!hasMedia(r)) return;
    this.withMedia++;
    this.images += r.images ?? 0;
    this.frames += r.video_frames ?? 0;
    this.audioS += r.audio_seconds ?? 0;
    this.pixels += r.image_pixels ?? 0;
    this.bytes += r.media_bytes ?? 0;
    this.requestBytes += r.request_bytes ?? 0;
    if (r.media_encode_ms !== undefined) {
      this.encode.push(r.media_encode_ms);
      this.encodeTotal += r.media_encode_ms;
    }
    if (typeof r.image_tokens === 'number') {
      this.tokens.image += r.image_tokens;
      this.tokens.imageN++;
    }
    if (typeof r.audio_tokens === 'number') {
      this.tokens.audio += r.audio_tokens;
      this.tokens.audioN++;
    }
  }

  /**
   * media and by_images when any measured record carried media (formulas: docs/metrics.md#images-video-and-audio). Rates
   * divide by the window of every measured record (every phase, as the totals are): the run's duration_s without ramps.
   */
  summary(ps: Percentiles, workload?: { threaded?: boolean; threads?: number; media_waited?: number }): MediaFigures {
    if (this.withMedia === 0) return {};
    const durationS = Math.max(this.end - this.start, 1e-3) / 1000;
    const by_images: Record<string, ImagesBlock> = {};
    const keys = [...this.byImages.keys()].sort((a, b) => parseInt(a, 10) - parseInt(b, 10));
    for (const k of keys) {
      const a = this.byImages.get(k)!;
      const [ttft_ms, tpot_ms, itl_ms, e2e_ms] = a.cols.map((c) => c.stats(ps));
      by_images[k] = { requests: a.requests, ok: a.ok, ttft_ms, tpot_ms, itl_ms, e2e_ms };
    }
    const share = durationS > 0 ? this.encodeTotal / (durationS * 1000) : null;
    // Encoded ahead on worker threads (synthetic media), encoding limits the run only when requests had to wait for
    // their media: then the share of requests that waited decides. Otherwise (encoded inline, or no word from the
    // workload) the encode share of the window does.
    const waited = workload?.threaded ? (workload.media_waited ?? 0) : undefined;
    const bound = waited !== undefined ? waited / this.withMedia > WAITED_SHARE_WARN : share !== null && share > ENCODE_SHARE_WARN;
    const t = this.tokens;
    const audio = Math.round(this.audioS * 1000) / 1000;
    return {
      media: {
        requests_with_media: this.withMedia,
        images: this.images,
        video_frames: this.frames,
        audio_seconds: audio,
        image_pixels: this.pixels,
        media_bytes: this.bytes,
        duration_s: durationS,
        images_per_s: rate(this.images, durationS),
        video_frames_per_s: rate(this.frames, durationS),
        audio_seconds_per_s: rate(audio, durationS),
        megapixels_per_s: rate(this.pixels / 1e6, durationS),
        media_mb_per_s: rate(this.bytes / 1e6, durationS),
        request_bytes: this.requestBytes,
        request_mb_per_s: rate(this.requestBytes / 1e6, durationS),
        mean_image_tokens: t.imageN ? t.image / t.imageN : null,
        image_tokens_reported: t.imageN,
        mean_audio_tokens: t.audioN ? t.audio / t.audioN : null,
        audio_tokens_reported: t.audioN,
        client: {
          encode_ms: distStatsCi(this.encode, ps),
          encode_total_ms: Math.round(this.encodeTotal * 1000) / 1000,
          encode_share: share,
          media_bytes_per_s: rate(this.bytes, durationS),
          encode_bound: bound,
          ...(waited !== undefined ? { media_waited: waited } : {}),
          warnings: !bound
            ? []
            : waited !== undefined
              ? [`${waited} of ${this.withMedia} requests waited for their media (${workload!.threads ?? 1} encoding threads, ${Math.round(this.encodeTotal)} CPU-ms in ${durationS.toFixed(1)} s): the client's encoding, not the server, limited the send rate (--media-threads)`]
              : [`media encoding took ${Math.round(share! * 100)}% of the measured window (${Math.round(this.encodeTotal)} CPU-ms in ${durationS.toFixed(1)} s): the client's encoding, not the server, may limit the send rate`],
        },
      },
      by_images,
    };
  }
}

/** `def`'s value(s) of `r` into `col` (null: none). */
function put(def: MetricDef, r: RequestRecord, col: ValueStore): void {
  const v = def.of(r);
  if (typeof v === 'number') col.add(v);
  else if (v !== null) for (const x of v) col.add(x);
}
