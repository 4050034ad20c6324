// Media references in a dataset record: image/audio/video fields (JSONL, LLaVA `image`, VisionArena `images`), `<image>`
// placeholders in conversation text, and OpenAI content parts (image_url, input_audio, video_url). Resolved in media-load.ts.
import type { MediaPart } from './types.js';

/** One media reference as written in the data: a path (relative to the dataset file), an http(s) URL or a data: URL. */
export interface MediaRef {
  kind: MediaPart['kind'];
  ref: string;
  /** Where in the record, for messages: e.g. `images[1]`, `messages[2].content[0]`. */
  field: string;
}

type Obj = Record<string, unknown>;

/** Record fields that carry media, by kind (singular and plural; the value is a string, {path|url}, or an array of those). */
export const MEDIA_FIELDS: readonly [string, MediaPart['kind']][] = [
  ['images', 'image'], ['image', 'image'], ['audios', 'audio'], ['audio', 'audio'], ['videos', 'video'], ['video', 'video'],
];

function refOf(v: unknown): string | undefined {
  if (typeof v === 'string' && v.trim() !== '') return v.trim();
  if (v && typeof v === 'object') {
    const o = v as Obj;
    const s = o.path ?? o.url ?? o.file;
    if (typeof s === 'string' && s.trim() !== '') return s.trim();
  }
  return undefined;
}

/** The media fields of a record in field order, or the reason one is malformed. */
export function fieldRefs(o: Obj): MediaRef[] | string {
  const out: MediaRef[] = [];
  for (const [name, kind] of MEDIA_FIELDS) {
    const v = o[name];
    if (v === undefined || v === null || v === '') continue;
    const list = Array.isArray(v) ? v : [v];
    for (let i = 0; i < list.length; i++) {
      const field = Array.isArray(v) ? `${name}[${i}]` : name;
      const ref = refOf(list[i]);
      if (ref === undefined) return `${field} must be a path or URL string (or {"path"} / {"url"})`;
      out.push({ kind, ref, field });
    }
  }
  return out;
}

const PLACEHOLDER = /<(image|audio|video)>\n?/g;

/** Strip `<image>`/`<audio>`/`<video>` placeholders (LLaVA style) from text, returning the kinds in order of appearance. */
export function takePlaceholders(text: string): { text: string; kinds: MediaPart['kind'][] } {
  const kinds: MediaPart['kind'][] = [];
  const stripped = text.replace(PLACEHOLDER, (_m, k: string) => {
    kinds.push(k as MediaPart['kind']);
    return '';
  });
  return { text: kinds.length ? stripped.trim() : text, kinds };
}

/** A non-text OpenAI content part as a media reference; undefined for a text part; a string when malformed. */
export function partRef(p: Obj, field: string): MediaRef | undefined | string {
  const t = p.type;
  if (t === 'text' || (t === undefined && typeof p.text === 'string')) return undefined;
  if (t === 'image_url' || t === 'video_url') {
    const kind = t === 'image_url' ? 'image' : 'video';
    const ref = refOf(p[t]);
    return ref === undefined ? `${field}: ${t} needs a url` : { kind, ref, field };
  }
  if (t === 'input_audio') {
    const a = p.input_audio as Obj | undefined;
    if (!a || typeof a.data !== 'string') return `${field}: input_audio needs base64 data`;
    const fmt = typeof a.format === 'string' ? a.format : 'wav';
    return { kind: 'audio', ref: `data:audio/${fmt === 'mp3' ? 'mpeg' : fmt};base64,${a.data}`, field };
  }
  return `${field}: unknown content part type ${JSON.stringify(t)} (text, image_url, input_audio or video_url)`;
}
