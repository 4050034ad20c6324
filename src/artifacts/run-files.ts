// run.json and summary.json of a results directory, read back (written whole through artifacts.ts).
import { existsSync, readFileSync } from 'node:fs';
import type { Summary } from '../metrics/summary-model.js';
import { ARTIFACTS, artifactPath, writeJsonArtifact, type Artifact } from './registry.js';

/** Write one JSON file of a results directory whole (temp + rename), pretty-printed with a final newline. */
export function writeJsonFile(dir: string, a: Artifact, value: unknown): void {
  writeJsonArtifact(dir, a, value);
}

/** run.json as an object; a missing or unreadable file gives {} and a warning. */
export function readRunMeta(dir: string, warnings: string[]): Record<string, unknown> {
  const runFile = artifactPath(dir, ARTIFACTS.run);
  if (!existsSync(runFile)) {
    warnings.push(`${runFile} not found: run metadata missing from the summary`);
    return {};
  }
  try {
    const parsed = JSON.parse(readFileSync(runFile, 'utf8')) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    warnings.push(`${runFile} is not a JSON object: run metadata missing from the summary`);
  } catch (e) {
    warnings.push(`${runFile} is unreadable (${(e as Error).message}): run metadata missing from the summary`);
  }
  return {};
}

/** summary.json when present and of its schema version (1), else undefined (unreadable: also a warning). */
export function readSummaryJson(dir: string, warnings: string[]): Summary | undefined {
  const p = artifactPath(dir, ARTIFACTS.summary);
  if (!existsSync(p)) return undefined;
  try {
    const text = readFileSync(p, 'utf8');
    const s = text.trim() ? (JSON.parse(text) as Summary) : undefined;
    return s && typeof s === 'object' && s.schema_version === ARTIFACTS.summary.schemaVersion ? s : undefined;
  } catch {
    warnings.push(`${p}: unreadable, ignored`);
    return undefined;
  }
}
