// Magic bytes and header dimensions of each media format a dataset may carry, from hand-built headers.
import { describe, it, expect } from 'vitest';
import { sniffMedia } from './media-sniff.js';

const bytes = (...parts: (number[] | string)[]): Buffer => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));

describe('sniffMedia', () => {
  it('JPEG: skips APP0 to the SOF0 frame header for height and width', () => {
    const app0 = [0xff, 0xe0, 0x00, 0x10, ...Array(14).fill(0)];
    const sof0 = [0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0xe0, 0x02, 0x80, 0x03, ...Array(9).fill(0)];
    expect(sniffMedia(bytes([0xff, 0xd8], app0, sof0))).toEqual({ kind: 'image', mime: 'image/jpeg', width: 640, height: 480 });
    expect(sniffMedia(bytes([0xff, 0xd8, 0xff, 0xd9], Array(12).fill(0)))).toMatch(/no dimensions/);
  });

  it('GIF and WebP (VP8X, VP8L)', () => {
    expect(sniffMedia(bytes('GIF89a', [0x20, 0x01, 0x10, 0x00]))).toEqual({ kind: 'image', mime: 'image/gif', width: 288, height: 16 });
    const vp8x = bytes('RIFF', [0, 0, 0, 0], 'WEBPVP8X', [10, 0, 0, 0, 0, 0, 0, 0], [0xff, 0x03, 0x00], [0x57, 0x02, 0x00]);
    expect(sniffMedia(vp8x)).toEqual({ kind: 'image', mime: 'image/webp', width: 1024, height: 600 });
    // VP8L: 14-bit width-1 and height-1 packed after the 0x2f signature byte: 100×50.
    const w = 99, h = 49;
    const packed = w | (h << 14);
    const vp8l = bytes('RIFF', [0, 0, 0, 0], 'WEBPVP8L', [0, 0, 0, 0, 0x2f], [packed & 0xff, (packed >> 8) & 0xff, (packed >> 16) & 0xff, (packed >> 24) & 0xff]);
    expect(sniffMedia(vp8l)).toEqual({ kind: 'image', mime: 'image/webp', width: 100, height: 50 });
  });

  it('MP3: an ID3 tag, then an MPEG-1 Layer III frame at 128 kbps / 44.1 kHz; seconds at that bit rate', () => {
    const id3 = bytes('ID3', [4, 0, 0, 0, 0, 0, 0]);
    const frame = [0xff, 0xfb, 0x90, 0x00];
    const body = Buffer.concat([id3, Buffer.from(frame), Buffer.alloc(16000 - 4)]);
    const s = sniffMedia(body) as { kind: string; mime: string; seconds: number; sampleRate: number; channels: number };
    expect(s).toMatchObject({ kind: 'audio', mime: 'audio/mpeg', sampleRate: 44100, channels: 2 });
    expect(s.seconds).toBeCloseTo((16000 * 8) / 128000, 9);
  });

  it('video containers by magic; truncated or unknown bytes are refused with a reason', () => {
    expect(sniffMedia(bytes([0, 0, 0, 0x18], 'ftypmp42'))).toEqual({ kind: 'video', mime: 'video/mp4' });
    expect(sniffMedia(bytes([0x1a, 0x45, 0xdf, 0xa3]))).toEqual({ kind: 'video', mime: 'video/webm' });
    expect(sniffMedia(bytes([0x89], 'PNG\r\n\x1a\n'))).toMatch(/IHDR/);
    expect(sniffMedia(bytes('RIFF', [0, 0, 0, 0], 'WAVE'))).toMatch(/no data chunk|without a data chunk/);
    expect(sniffMedia(Buffer.alloc(0))).toBe('empty file');
    expect(sniffMedia(bytes('%PDF-1.7'))).toMatch(/not a PNG/);
  });
});
