// Media file checks for datasets: what the bytes really are (magic bytes) and their dimensions or length, from headers only.

export interface SniffedMedia {
  kind: 'image' | 'audio' | 'video';
  mime: string;
  width?: number;
  height?: number;
  seconds?: number;
  sampleRate?: number;
  channels?: number;
}

const ascii = (b: Uint8Array, at: number, s: string): boolean => {
  if (b.length < at + s.length) return false;
  for (let i = 0; i < s.length; i++) if (b[at + i] !== s.charCodeAt(i)) return false;
  return true;
};
const u16be = (b: Uint8Array, i: number): number => (b[i] << 8) | b[i + 1];
const u16le = (b: Uint8Array, i: number): number => b[i] | (b[i + 1] << 8);
const u24le = (b: Uint8Array, i: number): number => b[i] | (b[i + 1] << 8) | (b[i + 2] << 16);
const u32be = (b: Uint8Array, i: number): number => ((b[i] << 24) >>> 0) + (b[i + 1] << 16) + (b[i + 2] << 8) + b[i + 3];
const u32le = (b: Uint8Array, i: number): number => b[i] + (b[i + 1] << 8) + (b[i + 2] << 16) + ((b[i + 3] << 24) >>> 0);

function png(b: Uint8Array): SniffedMedia | string {
  if (b.length < 24 || !ascii(b, 12, 'IHDR')) return 'PNG signature without an IHDR header';
  return { kind: 'image', mime: 'image/png', width: u32be(b, 16), height: u32be(b, 20) };
}

/** JPEG: walk the segments to the first start-of-frame (SOF0..SOF15 but DHT C4, JPG C8, DAC CC), which holds height and width. */
function jpeg(b: Uint8Array): SniffedMedia | string {
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return 'JPEG segment marker missing';
    const m = b[i + 1];
    if (m === 0xff) { i++; continue; }
    if (m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc)
      return { kind: 'image', mime: 'image/jpeg', height: u16be(b, i + 5), width: u16be(b, i + 7) };
    if (m === 0xd9 || m === 0xda) break;
    i += 2 + u16be(b, i + 2);
  }
  return 'JPEG without a frame header (no dimensions)';
}

function webp(b: Uint8Array): SniffedMedia | string {
  const mime = 'image/webp';
  if (ascii(b, 12, 'VP8 ') && b.length >= 30) return { kind: 'image', mime, width: u16le(b, 26) & 0x3fff, height: u16le(b, 28) & 0x3fff };
  if (ascii(b, 12, 'VP8L') && b.length >= 25) {
    const [b0, b1, b2, b3] = [b[21], b[22], b[23], b[24]];
    return { kind: 'image', mime, width: 1 + (b0 | ((b1 & 0x3f) << 8)), height: 1 + ((b1 >> 6) | (b2 << 2) | ((b3 & 0x0f) << 10)) };
  }
  if (ascii(b, 12, 'VP8X') && b.length >= 30) return { kind: 'image', mime, width: 1 + u24le(b, 24), height: 1 + u24le(b, 27) };
  return 'WebP without a VP8, VP8L or VP8X header';
}

/** WAV: the fmt chunk gives channels, rate and byte rate; seconds = data chunk bytes / byte rate. */
function wav(b: Uint8Array): SniffedMedia | string {
  let i = 12;
  let fmt: { channels: number; sampleRate: number; byteRate: number } | undefined;
  while (i + 8 <= b.length) {
    const size = u32le(b, i + 4);
    if (ascii(b, i, 'fmt ') && i + 24 <= b.length) fmt = { channels: u16le(b, i + 10), sampleRate: u32le(b, i + 12), byteRate: u32le(b, i + 16) };
    if (ascii(b, i, 'data')) {
      if (!fmt || fmt.byteRate === 0 || fmt.channels === 0) return 'WAV without a valid fmt chunk before its data';
      const bytes = Math.min(size, b.length - i - 8);
      return { kind: 'audio', mime: 'audio/wav', seconds: bytes / fmt.byteRate, sampleRate: fmt.sampleRate, channels: fmt.channels };
    }
    i += 8 + size + (size & 1);
  }
  return 'WAV without a data chunk';
}

const MP3_KBPS = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
const MP3_RATES = [44100, 48000, 32000];

/** MP3 (MPEG-1 Layer III): skip an ID3v2 tag, read the first frame header; seconds estimated as constant bit rate. */
function mp3(b: Uint8Array): SniffedMedia | string {
  let i = 0;
  if (ascii(b, 0, 'ID3') && b.length >= 10) i = 10 + ((b[6] << 21) | (b[7] << 14) | (b[8] << 7) | b[9]);
  if (i + 4 > b.length || b[i] !== 0xff || (b[i + 1] & 0xe0) !== 0xe0) return 'MP3 without a frame header';
  const version = (b[i + 1] >> 3) & 3;
  const layer = (b[i + 1] >> 1) & 3;
  const kbps = MP3_KBPS[b[i + 2] >> 4];
  const rate = MP3_RATES[(b[i + 2] >> 2) & 3];
  if (version !== 3 || layer !== 1 || !kbps || !rate) return 'MP3 frame header is not MPEG-1 Layer III';
  return { kind: 'audio', mime: 'audio/mpeg', seconds: ((b.length - i) * 8) / (kbps * 1000), sampleRate: rate, channels: ((b[i + 3] >> 6) & 3) === 3 ? 1 : 2 };
}

/** What the bytes are (PNG, JPEG, WebP, GIF, WAV, MP3, MP4, WebM), or why none of them. */
export function sniffMedia(b: Uint8Array): SniffedMedia | string {
  if (b.length === 0) return 'empty file';
  if (ascii(b, 0, '\x89PNG\r\n\x1a\n')) return png(b);
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return jpeg(b);
  if (ascii(b, 0, 'GIF87a') || ascii(b, 0, 'GIF89a')) return b.length >= 10 ? { kind: 'image', mime: 'image/gif', width: u16le(b, 6), height: u16le(b, 8) } : 'GIF too short';
  if (ascii(b, 0, 'RIFF') && ascii(b, 8, 'WEBP')) return webp(b);
  if (ascii(b, 0, 'RIFF') && ascii(b, 8, 'WAVE')) return wav(b);
  if (ascii(b, 4, 'ftyp')) return { kind: 'video', mime: 'video/mp4' };
  if (b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3) return { kind: 'video', mime: 'video/webm' };
  if (ascii(b, 0, 'ID3') || (b[0] === 0xff && (b[1] & 0xe0) === 0xe0)) return mp3(b);
  return 'not a PNG, JPEG, WebP or GIF image, WAV or MP3 audio, or MP4/WebM video (magic bytes)';
}
