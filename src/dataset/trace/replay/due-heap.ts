// Due items by time, then by the order they were made due: the sessions schedule's next request is its top.
import { MinHeap } from '../../../util/min-heap.js';

export interface Due {
  atMs: number;
  seq: number;
}

const before = (a: Due, b: Due): boolean => a.atMs < b.atMs || (a.atMs === b.atMs && a.seq < b.seq);

export class DueHeap<T extends Due> extends MinHeap<T> {
  constructor() {
    super(before);
  }
}
