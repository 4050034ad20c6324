// An even sample of a stream of unknown length in bounded memory: every k-th item, k doubling as the sample fills.

/**
 * At most `max` items, evenly spread over the stream, holding at most 2·max: every k-th item is kept, and k
 * doubles (dropping every other kept item) whenever the sample fills. Below `max` items, all of them.
 */
export class EvenSample<T> {
  private kept: T[] = [];
  private stride = 1;
  /** How many items were offered. */
  total = 0;
  constructor(private readonly max: number) {}
  add(x: T): void {
    if (this.total++ % this.stride !== 0) return;
    this.kept.push(x);
    if (this.kept.length >= 2 * this.max) {
      this.kept = this.kept.filter((_, i) => i % 2 === 0);
      this.stride *= 2;
    }
  }
  /** The sample, in stream order. */
  items(): T[] {
    return this.kept.length > this.max ? this.kept.filter((_, i) => i % 2 === 0) : this.kept;
  }
}
