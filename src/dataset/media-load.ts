// Dataset media at load time: local files read, checked (real image/audio by magic bytes, size limit) and hashed;
// remote URLs passed through only for allowed hosts. Each distinct file is read once and shared by every item naming it.
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, readSync } from 'node:fs';
import { dirname, extname, isAbsolute, resolve } from 'node:path';
import { openRegularFile } from '../util/read-file.js';
import type { MediaPart } from './types.js';
import type { DatasetItem } from './items.js';
import type { MediaRef } from './media-refs.js';
import { sniffMedia } from './media-sniff.js';

/** Default --max-media-bytes: one media file (or data URL) larger than this is bad media. */
export const DEFAULT_MAX_MEDIA_BYTES = 20 * 1024 * 1024;

export interface MediaOptions {
  /** Largest media file, bytes. */
  maxBytes?: number;
  /** Hosts remote media URLs may name (`host`, `host:port` or `*.domain`); none: every URL is bad media. */
  hosts?: readonly string[];
}

const MIME_BY_EXT: Record<string, string> = {
  '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.webp': 'image/webp', '.gif': 'image/gif',
  '.wav': 'audio/wav', '.mp3': 'audio/mpeg', '.mp4': 'video/mp4', '.webm': 'video/webm',
};

const sha256 = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex');

function hostAllowed(u: URL, hosts: readonly string[]): boolean {
  const name = u.hostname.toLowerCase();
  return hosts.some((h) => {
    const x = h.trim().toLowerCase();
    if (x.startsWith('*.')) return name.endsWith(x.slice(1));
    return x === name || x === u.host.toLowerCase();
  });
}

/** Read a file of at most `max` bytes; a larger one is refused from its size before any byte is read. */
function readBounded(path: string, max: number): Uint8Array | string {
  const opened = openRegularFile(path);
  if ('problem' in opened) return `cannot read: ${opened.problem}`;
  try {
    const size = fstatSync(opened.fd).size;
    if (size > max) return `${size} bytes is over --max-media-bytes ${max}`;
    const buf = Buffer.allocUnsafe(size);
    let got = 0;
    while (got < size) {
      const n = readSync(opened.fd, buf, got, size - got, got);
      if (n === 0) break;
      got += n;
    }
    return buf.subarray(0, got);
  } finally {
    closeSync(opened.fd);
  }
}

/** Decode a base64 data: URL (other encodings are refused). */
function dataUrl(ref: string): Uint8Array | string {
  const comma = ref.indexOf(',');
  if (comma < 0 || !/;base64$/i.test(ref.slice(0, comma))) return 'a data: URL must be base64 (data:<mime>;base64,...)';
  return Buffer.from(ref.slice(comma + 1), 'base64');
}

/** Resolves the media references of items; `cache` shares one MediaPart per distinct file across the dataset. */
export class MediaResolver {
  private readonly cache = new Map<string, MediaPart | string>();
  private readonly dir: string;
  private readonly max: number;
  private readonly hosts: readonly string[];
  constructor(datasetFile: string, o: MediaOptions = {}) {
    this.dir = dirname(resolve(datasetFile));
    this.max = o.maxBytes ?? DEFAULT_MAX_MEDIA_BYTES;
    this.hosts = o.hosts ?? [];
  }

  /** Fill `turn.media` for every turn with refs; returns the problems (`field "ref": reason`), none when all are good. */
  resolveItem(item: DatasetItem): string[] {
    const problems: string[] = [];
    for (const turn of item.turns) {
      if (!turn.mediaRefs?.length) continue;
      const parts: MediaPart[] = [];
      for (const r of turn.mediaRefs) {
        const p = this.resolveRef(r);
        if (typeof p === 'string') problems.push(`${r.field} ${JSON.stringify(r.ref.length > 80 ? `${r.ref.slice(0, 77)}...` : r.ref)}: ${p}`);
        else parts.push(p);
      }
      turn.media = parts;
      delete turn.mediaRefs;
    }
    return problems;
  }

  private resolveRef(r: MediaRef): MediaPart | string {
    if (/^https?:\/\//i.test(r.ref)) return this.remote(r);
    if (/^data:/i.test(r.ref)) {
      const bytes = dataUrl(r.ref);
      return typeof bytes === 'string' ? bytes : this.check(r, bytes);
    }
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(r.ref) && !/^file:\/\//i.test(r.ref)) return `unsupported URL scheme (http, https, data: or a local path)`;
    const rel = r.ref.replace(/^file:\/\//i, '');
    const path = isAbsolute(rel) ? rel : resolve(this.dir, rel);
    const key = `${r.kind}\0${path}`;
    let hit = this.cache.get(key);
    if (hit === undefined) {
      const bytes = readBounded(path, this.max);
      hit = typeof bytes === 'string' ? bytes : this.check(r, bytes);
      this.cache.set(key, hit);
    }
    return hit;
  }

  private remote(r: MediaRef): MediaPart | string {
    let u: URL;
    try {
      u = new URL(r.ref);
    } catch {
      return 'not a valid URL';
    }
    if (!hostAllowed(u, this.hosts))
      return `host ${u.host} is not in --media-hosts${this.hosts.length ? ` (${this.hosts.join(', ')})` : ''}; add it to send URLs to it`;
    const mime = MIME_BY_EXT[extname(u.pathname).toLowerCase()] ?? `${r.kind}/*`;
    return { kind: r.kind, mime, url: r.ref, hash: sha256(r.ref) };
  }

  private check(r: MediaRef, bytes: Uint8Array): MediaPart | string {
    if (bytes.length > this.max) return `${bytes.length} bytes is over --max-media-bytes ${this.max}`;
    const s = sniffMedia(bytes);
    if (typeof s === 'string') return s;
    if (s.kind !== r.kind) return `is ${s.mime}, not ${r.kind === 'audio' ? 'audio' : `a ${r.kind}`}`;
    if (s.kind === 'image' && (!s.width || !s.height)) return `${s.mime} header gives no dimensions`;
    return { ...s, data: bytes, hash: sha256(bytes) };
  }
}
