// Capture a CLI invocation's stdout and stderr in memory.
import { Writable } from 'node:stream';
import type { Out } from '../src/cli/io.js';

export function capture(): { io: Out; readonly out: string; readonly err: string } {
  let out = '';
  let err = '';
  const mk = (f: (s: string) => void) =>
    Object.assign(
      new Writable({
        write(c, _e, cb) {
          f(String(c));
          cb();
        },
      }),
      { isTTY: false },
    ) as unknown as NodeJS.WriteStream;
  const io = { out: mk((s) => (out += s)), err: mk((s) => (err += s)) };
  return {
    io,
    get out() {
      return out;
    },
    get err() {
      return err;
    },
  };
}
