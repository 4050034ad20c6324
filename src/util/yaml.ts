// YAML parsing with the yaml package loaded on first use: only runs given a YAML file need it (~2 MB, ~40 ms at start-up otherwise).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
let parse: ((text: string) => unknown) | undefined;

/** yaml's `parse(text)`; throws its YAMLParseError on bad input. */
export function parseYaml(text: string): unknown {
  parse ??= (require('yaml') as typeof import('yaml')).parse;
  return parse(text);
}
