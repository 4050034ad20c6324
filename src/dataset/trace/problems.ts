// Bad trace records, named by file, line (or session) and field: all reported at once (exit 2), or with skipBadLines counted and skipped.
import { UsageError } from '../../errors.js';

/** Records named in full when bad records are skipped; the rest are only counted. */
export const NAMED_SKIPPED = 5;
/** Problems listed in the error when the load fails; the rest are counted. */
const LISTED = 20;

export class TraceProblems {
  readonly list: string[] = [];
  constructor(readonly skipBadLines = false) {}

  /** One bad record: `where` is "file:line" or "file session S", `field` the offending field. */
  add(where: string, field: string, message: string): void {
    this.list.push(`${where}: ${field}: ${message}`);
  }

  /** A problem already worded "file:line: reason" (from tokenflood's own replay reader). */
  addWorded(problem: string): void {
    this.list.push(problem);
  }

  get count(): number {
    return this.list.length;
  }

  /** Throws the UsageError naming every problem (the first 20 listed) unless bad records are being skipped. */
  finish(): void {
    if (this.skipBadLines || !this.list.length) return;
    const more = this.list.length - LISTED;
    throw new UsageError([...this.list.slice(0, LISTED), ...(more > 0 ? [`... and ${more} more bad records (--skip-bad-lines skips them)`] : [])]);
  }

  /** With skipBadLines: the warnings a summary carries (count, then the first five). */
  warnings(): string[] {
    if (!this.list.length) return [];
    return [`${this.list.length} bad records skipped`, ...this.list.slice(0, NAMED_SKIPPED)];
  }
}

/** A non-negative integer, or undefined. */
export const nonNegInt = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined);

/** A finite number, or a number given as a numeric string (CSV fields), or undefined. */
export function num(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

/**
 * Why `hashIds` cannot be the blocks of an `inputLength`-token prompt under `blockSize`, or undefined when they can:
 * n blocks cover it when floor(L/B) <= n <= ceil(L/B) (the last block partial, or dropped as Weka does, then a tail of fresh tokens).
 */
export function hashCoverageProblem(hashIds: readonly number[], inputLength: number, blockSize: number): string | undefined {
  const n = hashIds.length;
  const lo = Math.floor(inputLength / blockSize);
  const hi = Math.ceil(inputLength / blockSize);
  if (n >= lo && n <= hi) return undefined;
  const need = lo === hi ? `${lo}` : `${lo} or ${hi}`;
  return n < lo
    ? `${n} blocks of ${blockSize} tokens cannot cover input_length ${inputLength} (needs ${need}; --trace-block-size sets the block size)`
    : `${n} blocks of ${blockSize} tokens are more than input_length ${inputLength} fills (needs ${need}; --trace-block-size sets the block size)`;
}

/** Why a hash_ids value is not a list of non-negative safe integers, or undefined. */
export function hashIdsProblem(v: unknown): string | undefined {
  if (!Array.isArray(v)) return 'must be a list of non-negative integers';
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    if (typeof x !== 'number' || !Number.isSafeInteger(x) || x < 0) return `item ${i} is ${JSON.stringify(x)}, not a non-negative integer`;
  }
  return undefined;
}

/** Watches that each session's recorded times never go backwards, in file order. */
export class SessionClock {
  private readonly last = new Map<string, { atMs: number; where: string }>();
  /** The problem with this request's time, or undefined; records it as the session's latest. */
  check(session: string, atMs: number, where: string): string | undefined {
    const prev = this.last.get(session);
    if (prev && atMs < prev.atMs) return `${atMs} ms goes back before the session's previous request (${prev.atMs} ms at ${prev.where})`;
    this.last.set(session, { atMs, where });
    return undefined;
  }
}
