// Byte-pair encoding (tiktoken's cl100k_base / o200k_base) over a compact rank table: counts equal gpt-tokenizer's at ~2 MB instead of ~30 MB.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

/**
 * The rank table of data/bpe/<encoding>.bin.gz (written by scripts/gen-bpe-tables.mjs from gpt-tokenizer's ranks):
 * token r's bytes are bytes[offsets[r], offsets[r + 1]); `slots` is an open-addressing hash of them holding r + 1.
 */
interface RankTable {
  count: number;
  offsets: Uint32Array;
  bytes: Uint8Array;
  slots: Int32Array;
  mask: number;
  /** Bytes of the longest token: a longer span is no token, without hashing it. */
  maxLen: number;
}

/** gpt-tokenizer 4.0.0's split patterns (src/encodingParams/constants.ts): text is cut into pieces, each encoded alone. */
const CONTRACTION = String.raw`'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE])`;
const SPLIT: Record<string, string> = {
  cl100k_base: String.raw`${CONTRACTION}|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s+$|\s*[\r\n]|\s+(?!\S)|\s`,
  o200k_base: String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?:${CONTRACTION})?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?:${CONTRACTION})?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
};

export const BPE_ENCODINGS = Object.keys(SPLIT);

/** FNV-1a over bytes[from, to). */
function hash(b: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ b[i], 0x01000193);
  return h >>> 0;
}

function readTable(file: string): RankTable {
  const raw = gunzipSync(readFileSync(file));
  const count = raw.readUInt32LE(0);
  const offsets = new Uint32Array(count + 1);
  let o = 0;
  for (let r = 0; r < count; r++) {
    offsets[r] = o;
    o += raw[4 + r];
  }
  offsets[count] = o;
  let maxLen = 0;
  for (let r = 0; r < count; r++) maxLen = Math.max(maxLen, raw[4 + r]);
  const bytes = raw.subarray(4 + count, 4 + count + o);
  let size = 1;
  while (size < count * 2) size <<= 1;
  const mask = size - 1;
  const slots = new Int32Array(size);
  next: for (let r = 0; r < count; r++) {
    const a = offsets[r];
    const len = offsets[r + 1] - a;
    if (len === 0) continue;
    let h = hash(bytes, a, a + len) & mask;
    for (let s = slots[h]; s !== 0; h = (h + 1) & mask, s = slots[h]) {
      // The lowest rank wins for equal bytes.
      const o = offsets[s - 1];
      if (offsets[s] - o !== len) continue;
      let i = 0;
      while (i < len && bytes[o + i] === bytes[a + i]) i++;
      if (i === len) continue next;
    }
    slots[h] = r + 1;
  }
  return { count, offsets, bytes, slots, mask, maxLen };
}

/** The rank of the token whose bytes are buf[from, to), or -1. */
function rankOf(t: RankTable, buf: Uint8Array, from: number, to: number): number {
  const len = to - from;
  if (len > t.maxLen) return -1;
  let h = hash(buf, from, to) & t.mask;
  for (let s = t.slots[h]; s !== 0; h = (h + 1) & t.mask, s = t.slots[h]) {
    const r = s - 1;
    const a = t.offsets[r];
    if (t.offsets[r + 1] - a !== len) continue;
    let i = 0;
    while (i < len && t.bytes[a + i] === buf[from + i]) i++;
    if (i === len) return r;
  }
  return -1;
}

/** Pieces up to this many bytes merge by scanning (fast for the short pieces of prose); longer ones through a heap. */
export const SCAN_MERGE_MAX = 64;

/**
 * tiktoken's merge: start from single bytes, repeatedly merge the adjacent pair whose joined bytes have the lowest
 * rank (the first such pair on a tie) until no joined pair is a token. Pushes the piece's ranks onto `out`.
 */
function merge(t: RankTable, piece: Uint8Array, len: number, out: number[]): void {
  const whole = rankOf(t, piece, 0, len);
  if (whole >= 0) {
    out.push(whole);
    return;
  }
  if (len > SCAN_MERGE_MAX) mergeByHeap(t, piece, len, out);
  else mergeByScan(t, piece, len, out);
}

/** The scan: O(len²) per piece, the cheapest for short pieces. */
function mergeByScan(t: RankTable, piece: Uint8Array, len: number, out: number[]): void {
  const starts: number[] = [];
  const ranks: number[] = [];
  const pairRank = (i: number): number => (i + 2 < starts.length ? rankOrInf(t, piece, starts[i], starts[i + 2]) : Infinity);
  for (let i = 0; i <= len; i++) {
    starts.push(i);
    ranks.push(i < len - 1 ? rankOrInf(t, piece, i, i + 2) : Infinity);
  }
  while (starts.length > 1) {
    let lowest = Infinity;
    let at = -1;
    for (let i = 0; i < ranks.length - 1; i++)
      if (ranks[i] < lowest) {
        lowest = ranks[i];
        at = i;
      }
    if (at === -1) break;
    starts.splice(at + 1, 1);
    ranks.splice(at, 1);
    ranks[at] = pairRank(at);
    if (at > 0) ranks[at - 1] = pairRank(at - 1);
  }
  for (let i = 0; i < starts.length - 1; i++) out.push(rankOf(t, piece, starts[i], starts[i + 1]));
}

/** Work done by mergeByHeap since load (heap pops), for tests that check the merge stays O(len log len). */
export const bpeWork = { heapPops: 0 };

/**
 * The same merge in O(len log len): parts are a linked list of start offsets, candidate pairs sit in a min-heap keyed
 * rank × 2³² + start (lowest rank, then leftmost, as the scan picks), and an entry whose pair has changed since it was
 * pushed is skipped when popped. A long run of one character (200 KB of `a`) is one piece: the scan took minutes.
 */
function mergeByHeap(t: RankTable, piece: Uint8Array, len: number, out: number[]): void {
  const next = new Int32Array(len + 1);
  const prev = new Int32Array(len + 1);
  // rank of the pair starting at part i (part i joined with the next one); -1: none, or i is no longer a part start.
  const pair = new Int32Array(len + 1).fill(-1);
  const heap = new Float64Array(3 * len + 1);
  let size = 0;
  const push = (rank: number, at: number): void => {
    let i = size++;
    const key = rank * 4294967296 + at;
    while (i > 0) {
      const up = (i - 1) >> 1;
      if (heap[up] <= key) break;
      heap[i] = heap[up];
      i = up;
    }
    heap[i] = key;
  };
  const pop = (): number => {
    const top = heap[0];
    const last = heap[--size];
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= size) break;
      if (c + 1 < size && heap[c + 1] < heap[c]) c++;
      if (heap[c] >= last) break;
      heap[i] = heap[c];
      i = c;
    }
    heap[i] = last;
    return top;
  };
  const setPair = (i: number): void => {
    const j = next[i];
    const r = j < len ? rankOf(t, piece, i, next[j]) : -1;
    pair[i] = r;
    if (r >= 0) push(r, i);
  };
  for (let i = 0; i <= len; i++) {
    next[i] = i + 1;
    prev[i] = i - 1;
  }
  for (let i = 0; i < len - 1; i++) setPair(i);
  while (size > 0) {
    const key = pop();
    bpeWork.heapPops++;
    const at = key % 4294967296;
    if (pair[at] !== (key - at) / 4294967296) continue; // stale
    const gone = next[at];
    const after = next[gone];
    next[at] = after;
    prev[after] = at;
    pair[gone] = -1;
    setPair(at);
    if (at > 0) setPair(prev[at]);
  }
  for (let i = 0; i < len; i = next[i]) out.push(rankOf(t, piece, i, next[i]));
}

function rankOrInf(t: RankTable, buf: Uint8Array, from: number, to: number): number {
  const r = rankOf(t, buf, from, to);
  return r < 0 ? Infinity : r;
}

/** Distinct pieces whose counts are remembered; the memo is cleared when it reaches this (pieces repeat a lot in prose). */
const MEMO_MAX = 50_000;

export interface Bpe {
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
  count(text: string): number;
}

/** The encoding's tokenizer from its table file; special-token text is plain text (nothing is special). */
export function loadBpe(encoding: string, file: string): Bpe {
  const pattern = SPLIT[encoding];
  if (!pattern) throw new Error(`no split pattern for ${encoding}`);
  const t = readTable(file);
  const split = new RegExp(pattern, 'gu');
  const utf8 = new TextEncoder();
  const text8 = new TextDecoder();
  let scratch = new Uint8Array(1024);
  const memo = new Map<string, number>();
  const encodePiece = (piece: string, out: number[]): void => {
    if (scratch.length < piece.length * 3) scratch = new Uint8Array(piece.length * 3);
    const { written } = utf8.encodeInto(piece, scratch);
    merge(t, scratch, written, out);
  };
  const ids: number[] = [];
  return {
    encode(text) {
      const out: number[] = [];
      for (const [piece] of text.matchAll(split)) encodePiece(piece, out);
      return out;
    },
    count(text) {
      let n = 0;
      for (const [piece] of text.matchAll(split)) {
        let k = memo.get(piece);
        if (k === undefined) {
          ids.length = 0;
          encodePiece(piece, ids);
          k = ids.length;
          if (memo.size >= MEMO_MAX) memo.clear();
          memo.set(piece, k);
        }
        n += k;
      }
      return n;
    },
    decode(list) {
      let n = 0;
      for (const r of list) if (r >= 0 && r < t.count) n += t.offsets[r + 1] - t.offsets[r];
      const b = new Uint8Array(n);
      let o = 0;
      for (const r of list)
        if (r >= 0 && r < t.count) {
          b.set(t.bytes.subarray(t.offsets[r], t.offsets[r + 1]), o);
          o += t.offsets[r + 1] - t.offsets[r];
        }
      return text8.decode(b);
    },
  };
}
