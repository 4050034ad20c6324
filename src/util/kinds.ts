// Lookup tables by kind (kind → factory): an unknown kind is answered with the list of valid ones.
import { UsageError } from '../errors.js';

/** The valid kinds of a table, in its declared order. */
export const kindsOf = (table: Readonly<Record<string, unknown>>): string[] => Object.keys(table);

/** The message for a kind not in the table, listing the valid kinds. */
export function unknownKind(kind: string, valid: readonly string[]): string {
  return `unknown kind "${kind}" (valid: ${valid.join(', ')})`;
}

/** `table[kind]`, or a UsageError (exit 2) naming what was asked (`name`, e.g. "--backend") and listing the valid kinds. Own keys only: "constructor" is not a kind. */
export function byKind<T>(table: Readonly<Record<string, T>>, kind: string, name: string): T {
  if (Object.hasOwn(table, kind)) return table[kind];
  throw new UsageError([`${name}: ${unknownKind(kind, kindsOf(table))}`]);
}
