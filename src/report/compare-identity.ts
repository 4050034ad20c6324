// What each compared side ran against: its --tag labels, the server's engine, version, max_model_len and engine
// arguments (run.json `tags`, `server_identity`), side by side with the rows that differ flagged (docs/commands/compare.md#identity).
import { join } from 'node:path';
import { readRunJson } from './compare-kind.js';
import { safeTerminalText, table } from './format.js';

/** One identity field on both sides; null = that side does not say. */
export interface IdentityRow {
  field: string;
  baseline: string | null;
  candidate: string | null;
  /** Both sides say, and say different things (one side silent is not a difference: it is unknown). */
  differs: boolean;
}

/** The directory whose run.json speaks for a side: the run, a repeated run's first run, a sweep's first point that ran (its points share one server); null for a vLLM result file. */
export function identityDir(l: { kind: 'run' | 'sweep'; dir: string; source?: string; repeated?: { dirs: string[] }; doc?: { points: { status: string; dir: string }[] } }): string | null {
  if (l.kind === 'sweep') {
    const first = l.doc?.points.find((p) => p.status !== 'failed');
    return first ? join(l.dir, first.dir) : null;
  }
  if (l.source === 'vllm-result') return null;
  return l.repeated?.dirs[0] ?? l.dir;
}

const text = (v: unknown): string | null => (v === null || v === undefined ? null : typeof v === 'object' ? JSON.stringify(v) : String(v));

/**
 * The identity fields of a run.json, flat, in a stable order: tag.KEY, model, engine, server version, max_model_len,
 * then each engine argument the server gave (server_info.KEY, engine_args.KEY), then tokenflood's own version.
 */
export function identityFields(run: Record<string, unknown>): Map<string, string | null> {
  const out = new Map<string, string | null>();
  const tags = run.tags && typeof run.tags === 'object' ? (run.tags as Record<string, unknown>) : {};
  for (const k of Object.keys(tags).sort()) out.set(`tag.${k}`, text(tags[k]));
  out.set('model', text(run.model));
  const id = run.server_identity && typeof run.server_identity === 'object' ? (run.server_identity as Record<string, unknown>) : {};
  out.set('engine', text(id.engine));
  out.set('server version', text(id.version));
  out.set('max_model_len', text(id.max_model_len));
  for (const group of ['server_info', 'engine_args'] as const) {
    const g = id[group] && typeof id[group] === 'object' ? (id[group] as Record<string, unknown>) : {};
    for (const k of Object.keys(g).sort()) out.set(`${group}.${k}`, text(g[k]));
  }
  out.set('tokenflood version', text(run.version));
  return out;
}

/** Both sides' identity, field by field (the union of both sides' fields; a field neither side has is left out). */
export function identityRows(baseline: Record<string, unknown>, candidate: Record<string, unknown>): IdentityRow[] {
  const a = identityFields(baseline);
  const b = identityFields(candidate);
  const keys = [...a.keys(), ...[...b.keys()].filter((k) => !a.has(k))];
  return keys
    .map((field) => {
      const [x, y] = [a.get(field) ?? null, b.get(field) ?? null];
      return { field, baseline: x, candidate: y, differs: x !== null && y !== null && x !== y };
    })
    .filter((r) => r.baseline !== null || r.candidate !== null);
}

/** The identity rows of two sides, from the run.json of each identityDir (none: that side says nothing). */
export function compareIdentity(baseDir: string | null, candDir: string | null): IdentityRow[] {
  return identityRows(baseDir ? readRunJson(baseDir) : {}, candDir ? readRunJson(candDir) : {});
}

/**
 * The terminal's identity block: every row, differing ones marked, and a warning line naming them. Server text
 * (versions, engine arguments) is untrusted: controls are stripped and long values cut.
 */
export function identityLines(rows: readonly IdentityRow[]): string[] {
  if (!rows.length) return [];
  const cell = (v: string | null) => (v === null ? '-' : safeTerminalText(v, 60));
  const out = ['', 'identity (run.json tags and server_identity):', table(['field', 'baseline', 'candidate', ''], rows.map((r) => [r.field, cell(r.baseline), cell(r.candidate), r.differs ? 'DIFFERS' : '']))];
  const diff = rows.filter((r) => r.differs).map((r) => r.field);
  if (diff.length) out.push(`WARNING: the two sides differ in ${diff.map((f) => safeTerminalText(f, 60)).join(', ')}: the deltas measure those changes too`);
  out.push('');
  return out;
}
