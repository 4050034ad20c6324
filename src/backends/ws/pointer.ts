// RFC 6901 JSON pointers: compiled once from the --backend-config mapping, then read per WebSocket message.

/** A compiled pointer: its reference tokens, unescaped (`~1` → `/`, `~0` → `~`). */
export type Pointer = readonly string[];

/** The problem with a pointer's syntax, or null: "" (the whole document) or "/" followed by tokens. */
export function pointerProblem(p: string): string | null {
  if (p !== '' && !p.startsWith('/')) return `"${p}" is not a JSON pointer (RFC 6901: "" or starting with "/", e.g. /choices/0/delta/content)`;
  if (/~[^01]|~$/.test(p)) return `"${p}" has a "~" not followed by 0 or 1 (write ~0 for "~" and ~1 for "/")`;
  return null;
}

export function compilePointer(p: string): Pointer {
  if (p === '') return [];
  return p
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The value the pointer refers to in `doc`, or undefined when any step is missing (arrays by decimal index only). */
export function getPointer(doc: unknown, ptr: Pointer): unknown {
  let cur: unknown = doc;
  for (const t of ptr) {
    if (Array.isArray(cur)) {
      if (!/^(0|[1-9]\d*)$/.test(t)) return undefined;
      cur = cur[Number(t)];
    } else if (cur !== null && typeof cur === 'object') {
      if (!Object.hasOwn(cur, t)) return undefined;
      cur = (cur as Record<string, unknown>)[t];
    } else return undefined;
  }
  return cur;
}
