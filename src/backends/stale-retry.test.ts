import { describe, expect, it } from 'vitest';
import type { Dispatcher } from 'undici';
import { isStaleReset, isStaleUndici, staleRetry } from './stale-retry.js';

/** undici's error for a connection the server closed, with the socket's byte counts. */
const closed = (bytesRead: number) => Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET', socket: { bytesRead } });

const controller = { aborted: false } as Dispatcher.DispatchController;

/** A fake dispatch that fails the first `fails` dispatches with `err`, then answers 200. */
function fakeDispatch(fails: number, err: Error): { dispatch: Dispatcher['dispatch']; calls: () => number } {
  let n = 0;
  const dispatch = ((_opts: Dispatcher.DispatchOptions, h: Dispatcher.DispatchHandler) => {
    const i = n++;
    if (i < fails) h.onResponseError?.(controller, err);
    else {
      h.onResponseStart?.(controller, 200, {}, 'OK');
      h.onResponseEnd?.(controller, {});
    }
    return true;
  }) as Dispatcher['dispatch'];
  return { dispatch, calls: () => n };
}

function handler() {
  const seen: string[] = [];
  let resolve!: () => void;
  const finished = new Promise<void>((r) => (resolve = r));
  const h = {
    onReconnect: () => seen.push('reconnect'),
    onResponseStart: (_c: unknown, status: number) => seen.push(`status ${status}`),
    onResponseEnd: () => (seen.push('end'), resolve()),
    onResponseError: (_c: unknown, e: Error & { code?: string }) => (seen.push(`error ${e.code}`), resolve()),
  };
  return { h: h as unknown as Dispatcher.DispatchHandler, seen, finished };
}

describe('staleRetry', () => {
  it('tells a stale connection from a fresh one by the bytes the socket had read', () => {
    expect(isStaleUndici(closed(512))).toBe(true);
    expect(isStaleUndici(closed(0))).toBe(false);
    expect(isStaleUndici(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe(false);
  });

  it('a reset counts as stale only on a reused socket that read nothing since the request went out', () => {
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    const socket = { bytesRead: 400 };
    expect(isStaleReset(reset, { reused: true, socket, readAtSend: 400 })).toBe(true);
    expect(isStaleReset(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }), { reused: true, socket, readAtSend: 400 })).toBe(true);
    expect(isStaleReset(reset, { reused: false, socket, readAtSend: 400 })).toBe(false);
    expect(isStaleReset(reset, { reused: true, socket, readAtSend: 300 })).toBe(false); // part of a response arrived
    expect(isStaleReset(reset, null)).toBe(false);
    expect(isStaleReset(Object.assign(new Error('x'), { code: 'ETIMEDOUT' }), { reused: true, socket, readAtSend: 400 })).toBe(false);
  });

  it('re-sends once and says so; a second stale failure is E_STALE_SOCKET', async () => {
    const once = fakeDispatch(1, closed(300));
    const a = handler();
    staleRetry()(once.dispatch)({ origin: 'http://x', path: '/', method: 'POST' }, a.h);
    await a.finished;
    expect(a.seen).toEqual(['reconnect', 'status 200', 'end']);
    expect(once.calls()).toBe(2);

    const twice = fakeDispatch(2, closed(300));
    const b = handler();
    staleRetry()(twice.dispatch)({ origin: 'http://x', path: '/', method: 'POST' }, b.h);
    await b.finished;
    expect(b.seen).toEqual(['reconnect', 'error E_STALE_SOCKET']);
  });

  it('sends the re-send through the fresh-connection dispatcher, closed after its response', async () => {
    const first = fakeDispatch(1, closed(300));
    const seenOpts: Dispatcher.DispatchOptions[] = [];
    const fresh = { dispatch: (o: Dispatcher.DispatchOptions, h: Dispatcher.DispatchHandler) => (seenOpts.push(o), fakeDispatch(0, closed(0)).dispatch(o, h)) } as unknown as Dispatcher;
    const a = handler();
    staleRetry(() => fresh)(first.dispatch)({ origin: 'http://x', path: '/', method: 'POST' }, a.h);
    await a.finished;
    expect(a.seen).toEqual(['reconnect', 'status 200', 'end']);
    expect(first.calls()).toBe(1);
    expect(seenOpts).toEqual([expect.objectContaining({ method: 'POST', reset: true })]);
  });

  it('does not re-send a failure on a fresh connection', async () => {
    const d = fakeDispatch(1, closed(0));
    const a = handler();
    staleRetry()(d.dispatch)({ origin: 'http://x', path: '/', method: 'POST' }, a.h);
    await a.finished;
    expect(a.seen).toEqual(['error UND_ERR_SOCKET']);
    expect(d.calls()).toBe(1);
  });
});
