// Flag tables: every config key maps to exactly one CLI flag, checked by the compiler.

export interface FlagSpec {
  /** Commander flag syntax, e.g. "--input-tokens <n>" or "--no-stream". */
  flag: string;
  help: string;
  /** Repeatable flag collecting values into an array. */
  repeatable?: boolean;
}

/** One flag per key of T: adding a config key without a flag is a compile error. */
export type FlagTable<T> = { [K in keyof Required<T>]: FlagSpec };
