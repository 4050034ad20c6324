// The one flag system: commander options generated from zod object schemas (name, placeholder, choices, help, default).
import { Option, type Command } from 'commander';
import type { z } from 'zod';
import { flagName } from './parse.js';

type Def = { type: string; innerType?: Node; in?: Node; out?: Node; defaultValue?: unknown; entries?: Record<string, string>; coerce?: boolean };
type Node = z.ZodType & { _zod: { def: Def } };

/** What a schema cannot say about its flag. Everything else (kind, choices, default) is read from the schema. */
export interface FlagMeta {
  /** Help text; defaults to the field's `.describe()`. Never holds "(default ...)": that comes from the schema. */
  help?: string;
  /** Flag name without dashes when it is not the kebab-case key. */
  name?: string;
  /** Value placeholder; defaults to the enum's choices, `n` for numbers, `value` otherwise. */
  arg?: string;
  /** A default decided at run time (no `.default()` in the schema), e.g. "1 when no --rate". */
  defaultText?: string;
  /** Show the default of this schema instead (the field is optional here, its default lives where it is applied). */
  defaultOf?: z.ZodType;
  /** Unit written after the default in help, e.g. "s" for "(default 600 s)". */
  unit?: string;
  /** Repeatable flag collecting values into an array. */
  repeatable?: boolean;
  /** A boolean that defaults to true (--no-x) also accepts --x, hidden from help, overriding a config file's `x: false`. */
  alsoOn?: boolean;
}

export interface Flag {
  key: string;
  /** Commander flag term, e.g. "--input-tokens <n|dist>" or "--no-stream". */
  flag: string;
  /** The flag's name in messages, without placeholder or "no-": "--stream" for "--no-stream", as config keys are named. */
  name: string;
  help: string;
  kind: 'number' | 'string' | 'boolean' | 'enum';
  /** Default as shown in help ("(default X)"), undefined when none is shown. */
  shownDefault?: string;
  repeatable: boolean;
  /** The schema takes a number and neither coerces nor preprocesses: the flag's string is converted (and reported when it is not one). */
  toNumber: boolean;
  /** --no-x that also accepts --x (FlagMeta.alsoOn). */
  alsoOn?: boolean;
}

/** One flag per key of the schema: a key without a flag (or a flag without a key) is a compile error. */
export type FlagMetaTable<S> = { [K in keyof S]-?: FlagMeta & { help: string } };
export type FlagTable<K extends PropertyKey = string> = { [P in K]: Flag };

/** The schema under default/optional/preprocess/transform wrappers, and the first `.default()` met on the way. */
export function unwrap(field: z.ZodType): { core: Node; defaultValue: unknown; hasDefault: boolean; preprocessed: boolean } {
  let s = field as Node;
  let defaultValue: unknown;
  let hasDefault = false;
  let preprocessed = false;
  for (;;) {
    const d = s._zod.def;
    if (d.type === 'default' || d.type === 'prefault') {
      if (!hasDefault) [defaultValue, hasDefault] = [d.defaultValue, true];
      s = d.innerType!;
    } else if (d.type === 'optional' || d.type === 'nullable' || d.type === 'readonly') s = d.innerType!;
    // z.preprocess(fn, schema) is pipe(transform, schema); schema.transform(fn) is pipe(schema, transform).
    else if (d.type === 'pipe') {
      preprocessed ||= d.in!._zod.def.type === 'transform';
      s = d.in!._zod.def.type === 'transform' ? d.out! : d.in!;
    } else return { core: s, defaultValue, hasDefault, preprocessed };
  }
}

/** Choices shown in the flag term at most; more go to the description. */
export const MAX_CHOICES_IN_TERM = 4;
const MAX_CHOICES_TERM_CHARS = 24;

function showDefault(v: unknown, unit: string | undefined): string | undefined {
  if (v === undefined || typeof v === 'boolean' || (Array.isArray(v) && v.length === 0)) return undefined;
  return `${Array.isArray(v) ? v.join(',') : String(v)}${unit ? ` ${unit}` : ''}`;
}

function buildFlag(key: string, field: z.ZodType, meta: FlagMeta): Flag {
  const { core, defaultValue, preprocessed } = unwrap(field);
  const t = core._zod.def.type;
  const kind = t === 'number' ? 'number' : t === 'boolean' ? 'boolean' : t === 'enum' ? 'enum' : 'string';
  const name = `--${meta.name ?? flagName(key)}`;
  const negate = kind === 'boolean' && defaultValue === true;
  let help = meta.help ?? field.description;
  if (!help) throw new Error(`${name}: no help text (give .describe() or a help entry)`);
  if (meta.help === undefined && negate) help = `turn off ${help}`;
  if (help.includes('(default')) throw new Error(`${name}: the help text shows a default; declare it in the schema (.default()) or as defaultText`);
  const choiceList = kind === 'enum' ? Object.values(core._zod.def.entries ?? {}) : [];
  // A few short choices stay in the term (--transport <auto|h1|undici>); more are listed in the wrapped description.
  const inTerm = choiceList.length <= MAX_CHOICES_IN_TERM && choiceList.join('|').length <= MAX_CHOICES_TERM_CHARS;
  if (choiceList.length && !inTerm) help = `${help}; one of ${choiceList.join(', ')}`;
  const choices = choiceList.length && inTerm ? choiceList.join('|') : undefined;
  const arg = meta.arg ?? choices ?? (choiceList.length ? name.slice(2).split('-').at(-1)! : kind === 'number' ? 'n' : 'value');
  const flag = kind === 'boolean' ? (negate ? `--no-${name.slice(2)}` : name) : `${name} <${arg}>`;
  const shownDefault = kind === 'boolean' ? undefined : meta.defaultText ?? showDefault(meta.defaultOf ? unwrap(meta.defaultOf).defaultValue : defaultValue, meta.unit);
  return { key, flag, name, help, kind, shownDefault, repeatable: meta.repeatable ?? false, toNumber: kind === 'number' && !core._zod.def.coerce && !preprocessed, ...(negate && meta.alsoOn ? { alsoOn: true } : {}) };
}

/** Flags for a schema whose every key has an entry in `meta` (checked by the compiler), in the order of `meta` (the help's order). */
export function flagTable<S extends Record<string, z.ZodType>>(shape: S, meta: FlagMetaTable<S>): FlagTable<Extract<keyof S, string>> {
  // The compiler checks literal tables; this catches tables built by spreading or filtering.
  const unmatched = [...Object.keys(shape).filter((k) => !(k in meta)), ...Object.keys(meta).filter((k) => !(k in shape))];
  if (unmatched.length) throw new Error(`flag table and schema differ: ${unmatched.join(', ')}`);
  return Object.fromEntries(Object.entries(meta as Record<string, FlagMeta>).map(([k, m]) => [k, buildFlag(k, shape[k], m)])) as FlagTable<Extract<keyof S, string>>;
}

/** Flags for a schema whose fields carry their help in `.describe()`; `meta` adjusts some, `skip` leaves fields handled by hand. */
export function describedFlags<S extends Record<string, z.ZodType>>(shape: S, meta: { [K in keyof S]?: FlagMeta } = {}, skip: readonly (keyof S)[] = []): FlagTable {
  const out: FlagTable = {};
  for (const [k, f] of Object.entries(shape)) if (!skip.includes(k)) out[k] = buildFlag(k, f, (meta as Record<string, FlagMeta>)[k] ?? {});
  return out;
}

/** The same flags showing another command's defaults (eval's sampling and concurrency differ from run's); help only, nothing is set. */
export function withShownDefaults<T extends FlagTable>(table: T, shown: Partial<Record<keyof T, string>>): T {
  return Object.fromEntries(Object.entries(table).map(([k, f]) => [k, k in shown ? { ...f, shownDefault: shown[k as keyof T] } : f])) as T;
}

/** Register the flags on `cmd`. Defaults are shown, not set, so only flags the user gave are collected (a config file can set the rest). */
export function addFlags(cmd: Command, table: FlagTable): void {
  for (const f of Object.values(table)) {
    const opt = new Option(f.flag, f.help);
    if (f.repeatable) opt.argParser((v: string, prev: string[] | undefined) => [...(prev ?? []), v]);
    if (f.shownDefault !== undefined) opt.defaultValueDescription = f.shownDefault;
    // Commander names options after the flag; keep the config key as the attribute name.
    opt.attributeName = () => f.key;
    cmd.addOption(opt);
    if (f.alsoOn) {
      // After --no-x, so commander has already set the default (true) that --x and --no-x share.
      const on = new Option(f.name, f.help).hideHelp();
      on.attributeName = () => f.key;
      cmd.addOption(on);
    }
  }
}

/** Values of flags given on the command line (numbers converted where the schema does not coerce; unparsable ones reported). */
export function collectFlags(values: Record<string, unknown>, table: FlagTable, problems: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of Object.values(table)) {
    const v = values[f.key];
    if (v === undefined) continue;
    // Commander sets true for a --no-x flag that was not given (a true that was given is --x, FlagMeta.alsoOn).
    if (f.kind === 'boolean' && f.flag.startsWith('--no-') && v !== false && !f.alsoOn) continue;
    if (f.toNumber) {
      const n = Number(v);
      if (typeof v !== 'string' || v.trim() === '' || !Number.isFinite(n)) problems.push(`${f.name}: "${String(v)}" is not a number`);
      else out[f.key] = n;
    } else out[f.key] = v;
  }
  return out;
}

/** Flags given on `cmd`'s command line; throws nothing, so callers report `problems` together with their own. */
export function givenFlags(cmd: Command, table: FlagTable, problems: string[] = []): Record<string, unknown> {
  const values = cmd.opts();
  const given: Record<string, unknown> = {};
  for (const k of Object.keys(table)) {
    const src = cmd.getOptionValueSource(k);
    if (src === 'cli' || src === 'env') given[k] = values[k];
  }
  return collectFlags(given, table, problems);
}

/** zod issues → one problem per issue, named by flag. */
export function issueProblems(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.map((i) => {
    const [first, ...rest] = i.path.map(String);
    const where = first === undefined ? 'options' : `--${flagName(first)}${rest.length ? `.${rest.join('.')}` : ''}`;
    return `${where}: ${i.message}`;
  });
}
