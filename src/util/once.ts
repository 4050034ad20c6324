// A value made once per owner: the first get() starts making it, every later get() (also one that overlaps) shares it.

export class Once<T> {
  private made?: Promise<T>;

  /** Whether a get() already started making the value. */
  get started(): boolean {
    return this.made !== undefined;
  }

  get(make: () => Promise<T>): Promise<T> {
    this.made ??= make();
    return this.made;
  }
}
