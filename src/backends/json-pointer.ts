// RFC 6901 JSON pointers: parsed once (at config load), then resolved per event without string work.

/** A parsed pointer: its reference tokens, `~1` → `/` and `~0` → `~` already undone. "" (the whole value) is []. */
export type Pointer = readonly string[];

/** Parse a pointer; a string error says what is wrong with it. */
export function parsePointer(p: string): Pointer | string {
  if (p === '') return [];
  if (!p.startsWith('/')) return `"${p}" is not a JSON pointer (RFC 6901): it must be empty or start with "/", e.g. /choices/0/delta/content`;
  const tokens = p.slice(1).split('/');
  for (const t of tokens) if (/~(?![01])/.test(t)) return `"${p}" is not a JSON pointer (RFC 6901): "~" must be written ~0 and "/" inside a name ~1`;
  return tokens.map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The value a pointer names in `v`, or undefined when there is none (a missing member, an index out of range). */
export function resolvePointer(v: unknown, p: Pointer): unknown {
  let cur = v;
  for (let i = 0; i < p.length; i++) {
    if (cur === null || typeof cur !== 'object') return undefined;
    const t = p[i];
    if (Array.isArray(cur)) {
      // RFC 6901 array indices: decimal digits without leading zeros ("-" names the element past the end: none).
      if (!/^(0|[1-9]\d*)$/.test(t)) return undefined;
      cur = cur[Number(t)];
    } else {
      if (!Object.prototype.hasOwnProperty.call(cur, t)) return undefined;
      cur = (cur as Record<string, unknown>)[t];
    }
  }
  return cur;
}
