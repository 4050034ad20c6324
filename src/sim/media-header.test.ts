import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { audioHeader, decodeDataUrl, imageHeader, videoHeader } from './media-header.js';
import { jpegHeaderBytes, pngBytes, wavBytes } from './media-fixtures.js';

describe('media headers', () => {
  it('PNG: IHDR width and height; the fixture is a real PNG (its IDAT inflates to the scanlines)', () => {
    const png = pngBytes(37, 19);
    expect(imageHeader(png)).toEqual({ format: 'png', width: 37, height: 19 });
    const idat = png.indexOf('IDAT');
    const len = png.readUInt32BE(idat - 4);
    expect(inflateSync(png.subarray(idat + 4, idat + 4 + len)).length).toBe((37 + 1) * 19);
  });
  it('JPEG: the SOF0 frame header, skipping APP segments', () => {
    expect(imageHeader(jpegHeaderBytes(1008, 756))).toEqual({ format: 'jpeg', width: 1008, height: 756 });
  });
  it('GIF and WebP (VP8X) headers', () => {
    const gif = Buffer.from('GIF89a\x40\x01\xf0\x00', 'latin1');
    expect(imageHeader(gif)).toEqual({ format: 'gif', width: 320, height: 240 });
    const webp = Buffer.alloc(30);
    webp.write('RIFF', 0, 'ascii');
    webp.write('WEBPVP8X', 8, 'ascii');
    webp.writeUIntLE(639, 24, 3);
    webp.writeUIntLE(479, 27, 3);
    expect(imageHeader(webp)).toEqual({ format: 'webp', width: 640, height: 480 });
  });
  it('not an image: undefined', () => {
    expect(imageHeader(Buffer.from('hello world, not an image at all'))).toBeUndefined();
    expect(imageHeader(Buffer.from([0xff, 0xd8, 0xff, 0xd9]))).toBeUndefined();
  });
  it('WAV: seconds from the data chunk and the byte rate', () => {
    const a = audioHeader(wavBytes(2.5, 16000, 2))!;
    expect(a.format).toBe('wav');
    expect(a.seconds).toBeCloseTo(2.5, 6);
    expect(a.channels).toBe(2);
    expect(a.sampleRate).toBe(16000);
  });
  it('MP3: first frame bitrate over the byte length', () => {
    // MPEG-1 Layer III, 128 kbps (index 9), 44.1 kHz: 16,000 bytes = 1 s.
    const mp3 = Buffer.alloc(16000);
    mp3.set([0xff, 0xfb, 0x90, 0x00]);
    expect(audioHeader(mp3)!.seconds).toBeCloseTo(1, 6);
    expect(audioHeader(Buffer.from('RIFF1234WAVEjunk'))).toBeUndefined();
  });
  it('MP4: mvhd duration and the video tkhd size', () => {
    const box = (type: string, body: Buffer): Buffer => {
      const h = Buffer.alloc(8);
      h.writeUInt32BE(8 + body.length, 0);
      h.write(type, 4, 'ascii');
      return Buffer.concat([h, body]);
    };
    const mvhd = Buffer.alloc(100);
    mvhd.writeUInt32BE(1000, 12);
    mvhd.writeUInt32BE(4500, 16);
    const tkhd = Buffer.alloc(84);
    tkhd.writeUInt32BE(640 * 65536, 76);
    tkhd.writeUInt32BE(360 * 65536, 80);
    const mp4 = Buffer.concat([box('ftyp', Buffer.from('isom0000')), box('moov', Buffer.concat([box('mvhd', mvhd), box('trak', box('tkhd', tkhd))]))]);
    expect(videoHeader(mp4)).toEqual({ seconds: 4.5, width: 640, height: 360 });
  });
  it('data URLs', () => {
    const d = decodeDataUrl(`data:image/png;base64,${pngBytes(2, 2).toString('base64')}`)!;
    expect(d.mime).toBe('image/png');
    expect(imageHeader(d.bytes)!.width).toBe(2);
    expect(decodeDataUrl('https://example.com/x.png')).toBeUndefined();
  });
});
