// The request template of the websocket backend: {{placeholders}} in message strings filled from the request's facts.

/** The names a template may use; each is a key of the facts the websocket backend's buildBody writes. */
export const PLACEHOLDERS = ['model', 'messages', 'prompt', 'max_tokens', 'ignore_eos', 'min_tokens', 'temperature', 'top_p', 'top_k', 'seed', 'request_id'];

const ONE = /^\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$/;
const ANY = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** Every placeholder name used anywhere in a template. */
export function placeholderNames(t: unknown, out = new Set<string>()): Set<string> {
  if (typeof t === 'string') for (const m of t.matchAll(ANY)) out.add(m[1]);
  else if (Array.isArray(t)) for (const x of t) placeholderNames(x, out);
  else if (t && typeof t === 'object') for (const x of Object.values(t)) placeholderNames(x, out);
  return out;
}

/** Marks a key whose value is absent in the facts: the key is left out of the message. */
const OMIT = Symbol('omit');

/**
 * Fill a template: a string that is exactly one placeholder becomes the value itself (any JSON type; the key is
 * dropped when the value is absent, e.g. {{temperature}} without --temperature); placeholders inside longer
 * strings are replaced by the value as text (JSON for objects).
 */
export function render(t: unknown, facts: Record<string, unknown>): unknown {
  const r = fill(t, facts);
  return r === OMIT ? null : r;
}

function fill(t: unknown, facts: Record<string, unknown>): unknown {
  if (typeof t === 'string') {
    const one = ONE.exec(t);
    if (one) return facts[one[1]] === undefined ? OMIT : facts[one[1]];
    if (!t.includes('{{')) return t;
    return t.replace(ANY, (_m, name: string) => {
      const v = facts[name];
      return v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v);
    });
  }
  if (Array.isArray(t)) return t.map((x) => fill(x, facts)).filter((x) => x !== OMIT);
  if (t && typeof t === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(t)) {
      const x = fill(v, facts);
      if (x !== OMIT) out[k] = x;
    }
    return out;
  }
  return t;
}
