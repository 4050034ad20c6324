// Column: a growable typed array of numbers, the aggregators' storage (8 bytes a value, no boxed numbers).

/** A growable Float64Array (capacity doubles), so n values cost 8n bytes, not a JS array of boxed numbers. */
export class Column {
  private buf = new Float64Array(64);
  length = 0;
  push(x: number): void {
    if (this.length === this.buf.length) {
      const next = new Float64Array(this.buf.length * 2);
      next.set(this.buf);
      this.buf = next;
    }
    this.buf[this.length++] = x;
  }
  values(): Float64Array {
    return this.buf.subarray(0, this.length);
  }
}
