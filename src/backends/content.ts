// What a response's headers say about its body (media type, content coding), and a streaming decoder for it.
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';
import type { Transform } from 'node:stream';

/**
 * A singleton field's value (Content-Type, RFC 9110 §8.3): repeated identical lines are one value; differing ones
 * are a list, which matches no media type (so the body is judged as of an unknown type), as the h1 pool's joined
 * value does too. RFC 9110 §8.3 warns that guessing one member of such a list is what makes clients disagree.
 */
export function singletonField(v: string | string[] | undefined): string {
  if (!Array.isArray(v)) return v ?? '';
  const vals = v.map((x) => x.trim());
  return vals.every((x) => x === vals[0]) ? (vals[0] ?? '') : vals.join(', ');
}

/** The media type of a Content-Type value, lowercased, parameters dropped: "Text/Event-Stream; charset=UTF-8" → "text/event-stream". */
export function mediaType(v: string | string[] | undefined): string {
  const s = singletonField(v);
  const semi = s.indexOf(';');
  return (semi < 0 ? s : s.slice(0, semi)).trim().toLowerCase();
}

/** application/json and any structured-syntax `+json` type (application/problem+json, …). */
export const isJsonType = (t: string): boolean => t === 'application/json' || (t.startsWith('application/') && t.endsWith('+json'));

export type Coding = 'gzip' | 'deflate' | 'br';

const CODINGS: Record<string, Coding> = { gzip: 'gzip', 'x-gzip': 'gzip', deflate: 'deflate', br: 'br' };

/**
 * The content coding of a response from its Content-Encoding: null for none (or identity), a coding tokenflood
 * decodes, or an error naming the one it cannot (it asks for identity, so a server that sends one ignored that).
 */
export function contentCoding(v: string | string[] | undefined): { coding: Coding | null; error: string | null } {
  const names = (Array.isArray(v) ? v.join(',') : (v ?? ''))
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s && s !== 'identity');
  if (names.length === 0) return { coding: null, error: null };
  const coding = names.length === 1 ? CODINGS[names[0]] : undefined;
  if (coding) return { coding, error: null };
  const shown = names.join(', ').replace(/[^\x20-\x7e]/g, '?').slice(0, 60);
  return { coding: null, error: `content-encoding "${shown}" is not supported (tokenflood asks for identity; it decodes gzip, deflate and br)` };
}

/**
 * Decompresses a body as it arrives: every decompressed piece goes to `onData` as zlib produces it (so its
 * timestamp is when the decoded bytes became available), then `onDone` once, with null or the decoding error.
 */
export class BodyDecoder {
  private z: Transform | null = null;
  private finished = false;

  constructor(
    private readonly coding: Coding,
    private readonly onData: (b: Buffer) => void,
    private readonly onDone: (err: Error | null) => void,
  ) {}

  write(chunk: Buffer): void {
    if (this.finished) return;
    // Copied: the transport may reuse its read buffer once this call returns, and zlib works asynchronously.
    (this.z ?? this.open(chunk)).write(Buffer.from(chunk));
  }

  end(): void {
    if (this.finished) return;
    (this.z ?? this.open(Buffer.alloc(0))).end();
  }

  /** Stop decoding and forget the callbacks (the request failed). */
  destroy(): void {
    this.finished = true;
    this.z?.destroy();
  }

  private open(firstChunk: Buffer): Transform {
    // "deflate" should be zlib-wrapped (RFC 9110) but some servers send raw deflate: a zlib header has CM = 8 in its low nibble.
    const z =
      this.coding === 'gzip'
        ? createGunzip()
        : this.coding === 'br'
          ? createBrotliDecompress()
          : firstChunk.length > 0 && (firstChunk[0] & 0x0f) !== 0x08
            ? createInflateRaw()
            : createInflate();
    z.on('data', (b: Buffer) => {
      if (!this.finished) this.onData(b);
    });
    z.on('error', (err) => this.done(err));
    z.on('end', () => this.done(null));
    this.z = z;
    return z;
  }

  private done(err: Error | null): void {
    if (this.finished) return;
    this.finished = true;
    this.onDone(err);
  }
}
