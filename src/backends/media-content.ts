// Media of a request rendered as each protocol's content parts (issue 28): OpenAI chat, Responses, Anthropic, Ollama.
import type { ChatMessage, MediaPart } from '../dataset/types.js';

/** What a protocol can carry: images (video frames go as images) and audio. */
export type MediaCarry = 'image' | 'audio';

const b64 = (d: Uint8Array | undefined): string => (d ? Buffer.from(d.buffer, d.byteOffset, d.byteLength).toString('base64') : '');
const dataUrl = (m: MediaPart): string => m.url ?? `data:${m.mime};base64,${b64(m.data)}`;
/** Video frames are image parts; a video part with a video/* type would be a clip (none is generated). */
const asImage = (m: MediaPart): boolean => m.kind === 'image' || (m.kind === 'video' && m.mime.startsWith('image/'));

/** The messages with the last user message's content replaced by `render(text)`; the others untouched. */
export function onLastUser<T>(messages: readonly ChatMessage[], render: (text: string) => T): Array<ChatMessage | { role: ChatMessage['role']; [k: string]: unknown }> {
  let last = -1;
  for (let i = messages.length - 1; i >= 0; i--)
    if (messages[i].role === 'user') {
      last = i;
      break;
    }
  return messages.map((m, i) => (i === last ? { ...m, content: render(m.content) } : m));
}

/** OpenAI chat content parts: text, then image_url (data URL) per image or frame, input_audio (base64, wav|mp3) per clip. */
export function openaiChatParts(text: string, media: readonly MediaPart[]): unknown[] {
  const parts: unknown[] = [{ type: 'text', text }];
  for (const m of media) {
    if (asImage(m)) parts.push({ type: 'image_url', image_url: { url: dataUrl(m) } });
    else if (m.kind === 'audio') parts.push({ type: 'input_audio', input_audio: { data: b64(m.data), format: m.mime === 'audio/mpeg' ? 'mp3' : 'wav' } });
    else parts.push({ type: 'video_url', video_url: { url: dataUrl(m) } });
  }
  return parts;
}

/** OpenAI Responses input parts: input_text, then input_image (image_url as a data URL) per image or frame. */
export function responsesParts(text: string, media: readonly MediaPart[]): unknown[] {
  return [{ type: 'input_text', text }, ...media.filter(asImage).map((m) => ({ type: 'input_image', image_url: dataUrl(m) }))];
}

/** Anthropic Messages content blocks: image blocks with a base64 source (a url source for a remote image), then the text. */
export function anthropicParts(text: string, media: readonly MediaPart[]): unknown[] {
  const imgs = media.filter(asImage).map((m) => ({ type: 'image', source: m.url && !m.data ? { type: 'url', url: m.url } : { type: 'base64', media_type: m.mime, data: b64(m.data) } }));
  return [...imgs, { type: 'text', text }];
}

/** Ollama: plain base64 strings, in the message's (or /api/generate body's) `images`. */
export const ollamaImages = (media: readonly MediaPart[]): string[] => media.filter(asImage).map((m) => b64(m.data));

/** The kinds a request's media need a protocol to carry. */
export function mediaNeeds(p: { images?: string; videoFrames?: number; audioSeconds?: number }): MediaCarry[] {
  const out: MediaCarry[] = [];
  if ((p.images !== undefined && !/^(fixed:)?0+$/.test(p.images.trim())) || p.videoFrames) out.push('image');
  if (p.audioSeconds) out.push('audio');
  return out;
}
