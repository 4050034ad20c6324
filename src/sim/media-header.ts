// Media facts from an encoded file's header bytes, without decoding it: image width/height (PNG IHDR, JPEG SOF,
// GIF, WebP), WAV and MP3 duration, MP4 duration and frame size. Used by the sim to count image/audio tokens.

export interface ImageHeader {
  format: 'png' | 'jpeg' | 'gif' | 'webp';
  width: number;
  height: number;
}

const ascii = (b: Uint8Array, at: number, n: number): string => String.fromCharCode(...b.subarray(at, at + n));
const u16be = (b: Uint8Array, i: number): number => (b[i] << 8) | b[i + 1];
const u32be = (b: Uint8Array, i: number): number => ((b[i] << 24) >>> 0) + ((b[i + 1] << 16) | (b[i + 2] << 8) | b[i + 3]);
const u16le = (b: Uint8Array, i: number): number => b[i] | (b[i + 1] << 8);
const u32le = (b: Uint8Array, i: number): number => (b[i] | (b[i + 1] << 8) | (b[i + 2] << 16)) + ((b[i + 3] << 24) >>> 0);

/** Width and height of a PNG, JPEG, GIF or WebP image; undefined when the bytes are none of these. */
export function imageHeader(b: Uint8Array): ImageHeader | undefined {
  if (b.length >= 24 && b[0] === 0x89 && ascii(b, 1, 3) === 'PNG' && ascii(b, 12, 4) === 'IHDR')
    return { format: 'png', width: u32be(b, 16), height: u32be(b, 20) };
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) return jpegHeader(b);
  if (b.length >= 10 && (ascii(b, 0, 6) === 'GIF87a' || ascii(b, 0, 6) === 'GIF89a')) return { format: 'gif', width: u16le(b, 6), height: u16le(b, 8) };
  if (b.length >= 30 && ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 4) === 'WEBP') {
    const kind = ascii(b, 12, 4);
    if (kind === 'VP8 ') return { format: 'webp', width: u16le(b, 26) & 0x3fff, height: u16le(b, 28) & 0x3fff };
    if (kind === 'VP8L') {
      const bits = u32le(b, 21);
      return { format: 'webp', width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
    }
    if (kind === 'VP8X') return { format: 'webp', width: 1 + (b[24] | (b[25] << 8) | (b[26] << 16)), height: 1 + (b[27] | (b[28] << 8) | (b[29] << 16)) };
  }
  return undefined;
}

// Start-of-frame markers (baseline, progressive, lossless, arithmetic); C4 (DHT), C8 (JPG) and CC (DAC) are not frames.
const SOF = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

function jpegHeader(b: Uint8Array): ImageHeader | undefined {
  let i = 2;
  while (i + 3 < b.length) {
    if (b[i] !== 0xff) return undefined;
    const marker = b[i + 1];
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return undefined; // end of image / scan before any frame header
    const len = u16be(b, i + 2);
    if (SOF.has(marker)) return i + 8 < b.length ? { format: 'jpeg', height: u16be(b, i + 5), width: u16be(b, i + 7) } : undefined;
    i += 2 + len;
  }
  return undefined;
}

export interface AudioHeader {
  format: 'wav' | 'mp3';
  seconds: number;
  sampleRate?: number;
  channels?: number;
}

/** Duration of a WAV (RIFF fmt + data chunks) or MP3 (first frame's bitrate over the byte length) clip. */
export function audioHeader(b: Uint8Array): AudioHeader | undefined {
  if (b.length >= 12 && ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 4) === 'WAVE') {
    let i = 12;
    let byteRate = 0;
    let sampleRate = 0;
    let channels = 0;
    while (i + 8 <= b.length) {
      const id = ascii(b, i, 4);
      const size = u32le(b, i + 4);
      if (id === 'fmt ' && i + 24 <= b.length) {
        channels = u16le(b, i + 10);
        sampleRate = u32le(b, i + 12);
        byteRate = u32le(b, i + 16);
      } else if (id === 'data') {
        if (byteRate <= 0) return undefined;
        // A streamed WAV may carry 0 or 0xFFFFFFFF as its data size: the bytes present are the data.
        const avail = b.length - (i + 8);
        const bytes = size === 0 || size === 0xffffffff ? avail : Math.min(size, avail);
        return { format: 'wav', seconds: bytes / byteRate, sampleRate, channels };
      }
      i += 8 + size + (size & 1);
    }
    return undefined;
  }
  return mp3Header(b);
}

// MPEG-1 Layer III bitrates (kbps) by index; MPEG-2/2.5 Layer III below.
const MP3_V1 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
const MP3_V2 = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];

function mp3Header(b: Uint8Array): AudioHeader | undefined {
  let i = 0;
  if (b.length >= 10 && ascii(b, 0, 3) === 'ID3') i = 10 + ((b[6] << 21) | (b[7] << 14) | (b[8] << 7) | b[9]);
  for (const end = Math.min(b.length - 4, i + 4096); i < end; i++) {
    if (b[i] !== 0xff || (b[i + 1] & 0xe0) !== 0xe0) continue;
    const version = (b[i + 1] >> 3) & 3; // 3 = MPEG-1
    const layer = (b[i + 1] >> 1) & 3; // 1 = Layer III
    const idx = b[i + 2] >> 4;
    if (layer !== 1 || version === 1 || idx === 0 || idx === 15) continue;
    const kbps = (version === 3 ? MP3_V1 : MP3_V2)[idx];
    return { format: 'mp3', seconds: ((b.length - i) * 8) / (kbps * 1000) };
  }
  return undefined;
}

export interface VideoHeader {
  seconds: number;
  width: number;
  height: number;
}

/** Duration (mvhd) and frame size (the first video tkhd) of an MP4 / MOV clip; undefined otherwise. */
export function videoHeader(b: Uint8Array): VideoHeader | undefined {
  let seconds: number | undefined;
  let width = 0;
  let height = 0;
  const walk = (from: number, to: number): void => {
    let i = from;
    while (i + 8 <= to) {
      let size = u32be(b, i);
      const type = ascii(b, i + 4, 4);
      let head = 8;
      if (size === 1 && i + 16 <= to) {
        size = u32be(b, i + 8) * 2 ** 32 + u32be(b, i + 12);
        head = 16;
      } else if (size === 0) size = to - i;
      if (size < head || i + size > to) return;
      if (type === 'moov' || type === 'trak') walk(i + head, i + size);
      else if (type === 'mvhd') {
        const v = b[i + head];
        const scale = v === 1 ? u32be(b, i + head + 20) : u32be(b, i + head + 12);
        const dur = v === 1 ? u32be(b, i + head + 24) * 2 ** 32 + u32be(b, i + head + 28) : u32be(b, i + head + 16);
        if (scale > 0) seconds = dur / scale;
      } else if (type === 'tkhd' && width === 0) {
        const v = b[i + head];
        const at = i + head + (v === 1 ? 88 : 76);
        if (at + 8 <= i + size) {
          width = u32be(b, at) / 65536;
          height = u32be(b, at + 4) / 65536;
        }
      }
      i += size;
    }
  };
  if (b.length < 12 || ascii(b, 4, 4) !== 'ftyp') return undefined;
  walk(0, b.length);
  return seconds !== undefined && width > 0 && height > 0 ? { seconds, width: Math.round(width), height: Math.round(height) } : undefined;
}

/** Bytes of a base64 `data:` URL, with its MIME type; undefined when `url` is not one. */
export function decodeDataUrl(url: string): { mime: string; bytes: Uint8Array } | undefined {
  const m = /^data:([^;,]*)(;[^,]*)?,/.exec(url);
  if (!m) return undefined;
  const body = url.slice(m[0].length);
  const bytes = (m[2] ?? '').includes(';base64') ? Buffer.from(body, 'base64') : Buffer.from(decodeURIComponent(body), 'utf8');
  return { mime: m[1] || 'text/plain', bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length) };
}
