// CLI flags generated from a zod object schema: one --kebab-case flag per field, help from .describe(), values validated together.
import type { Command } from 'commander';
import type { z } from 'zod';

type AnySchema = z.ZodType & { _zod: { def: { type: string; innerType?: AnySchema; defaultValue?: unknown; entries?: Record<string, string> } } };

export interface FlagSpec {
  key: string;
  flag: string;
  kind: 'number' | 'string' | 'boolean' | 'enum';
  values?: string[];
  description: string;
  defaultValue?: unknown;
}

export const kebab = (k: string): string => k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** Flag table for the fields of `shape`, skipping `skip` (fields handled by hand). */
export function flagSpecs(shape: Record<string, z.ZodType>, skip: readonly string[] = []): FlagSpec[] {
  const out: FlagSpec[] = [];
  for (const [key, field] of Object.entries(shape)) {
    if (skip.includes(key)) continue;
    let s = field as AnySchema;
    let defaultValue: unknown;
    while (s._zod.def.type === 'default' || s._zod.def.type === 'optional') {
      if (s._zod.def.type === 'default') defaultValue = s._zod.def.defaultValue;
      s = s._zod.def.innerType!;
    }
    const t = s._zod.def.type;
    const kind = t === 'number' ? 'number' : t === 'boolean' ? 'boolean' : t === 'enum' ? 'enum' : 'string';
    const values = kind === 'enum' ? Object.values(s._zod.def.entries ?? {}) : undefined;
    out.push({ key, flag: kebab(key), kind, values, description: field.description ?? key, defaultValue });
  }
  return out;
}

/**
 * Register every flag on `cmd`. Booleans that default to true become --no-<flag>; enum values are listed in the
 * flag term, as run's flags do. Values stay strings until parse; defaults are shown, not set, so that only flags
 * the user gave are collected (a config file can set the rest).
 */
export function addFlags(cmd: Command, specs: readonly FlagSpec[]): void {
  for (const f of specs) {
    const dflt = f.defaultValue === undefined ? '' : ` (default ${String(f.defaultValue)})`;
    if (f.kind === 'boolean') {
      if (f.defaultValue === true) cmd.option(`--no-${f.flag}`, `turn off ${f.description}`);
      else cmd.option(`--${f.flag}`, `${f.description}${dflt}`);
    } else {
      const arg = f.values ? f.values.join('|') : f.kind === 'number' ? 'n' : 'value';
      cmd.option(`--${f.flag} <${arg}>`, `${f.description}${dflt}`);
    }
  }
}

/** Commander's parsed option values → an input object (numbers converted); unparsable numbers are reported. */
export function collectFlags(values: Record<string, unknown>, specs: readonly FlagSpec[], problems: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of specs) {
    const v = values[f.key];
    if (v === undefined) continue;
    if (f.kind === 'number') {
      const n = Number(v);
      if (typeof v !== 'string' || v.trim() === '' || !Number.isFinite(n)) problems.push(`--${f.flag}: "${String(v)}" is not a number`);
      else out[f.key] = n;
    } else if (f.kind === 'boolean') {
      if (f.defaultValue !== true || v === false) out[f.key] = v;
    } else out[f.key] = v;
  }
  return out;
}

/** zod issues → one problem per issue, named by flag. */
export function issueProblems(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.map((i) => {
    const [first, ...rest] = i.path.map(String);
    const where = first === undefined ? 'options' : `--${kebab(first)}${rest.length ? `.${rest.join('.')}` : ''}`;
    return `${where}: ${i.message}`;
  });
}
