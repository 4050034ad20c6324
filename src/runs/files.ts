// A repeated run's own files beside its run-K directories: runs.json (the aggregate) and runs.txt (its table for people).
import { ARTIFACTS, jsonText, readArtifactText } from '../artifacts/registry.js';
import { FileLedger } from '../lifecycle/files.js';
import type { RunsDoc } from './model.js';
import { renderRuns } from './terminal.js';

/** Write runs.json and runs.txt whole (temp + rename); what failed is in the ledger's failures. */
export function writeRunsFiles(dir: string, doc: RunsDoc): FileLedger {
  const files = new FileLedger(dir);
  files.save(ARTIFACTS.runs.file, () => jsonText(doc));
  files.save(ARTIFACTS.runsText.file, () => renderRuns(doc) + '\n');
  return files;
}

/** The runs.json of `dir`, or undefined when it has none (or another schema version). */
export function readRunsDoc(dir: string): RunsDoc | undefined {
  const text = readArtifactText(dir, ARTIFACTS.runs);
  if (text === undefined) return undefined;
  const doc = JSON.parse(text) as RunsDoc;
  return doc.kind === 'runs' && doc.schema_version === ARTIFACTS.runs.schemaVersion ? doc : undefined;
}
