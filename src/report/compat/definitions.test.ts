// docs/metrics.md#other-tools describes DEFINITIONS: every rule of every tool in its table is the one the code applies.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DEFINITIONS, type DefinedTool, type ToolDefinition } from './definitions.js';

const TOOLS: DefinedTool[] = ['tokenflood', 'vllm', 'sglang', 'guidellm', 'aiperf'];
const RULES = ['start', 'chunks', 'end', 'tpot', 'itl', 'speed', 'window'] as const satisfies readonly (keyof ToolDefinition)[];

describe('the definitions table in docs/metrics.md', () => {
  const doc = readFileSync(fileURLToPath(new URL('../../../docs/metrics.md', import.meta.url)), 'utf8');
  const section = doc.slice(doc.indexOf('## Other tools'), doc.indexOf('\n## ', doc.indexOf('## Other tools') + 3));
  const rows = section.split('\n').filter((l) => l.startsWith('| ')).map((l) => l.slice(2, -2).split(' | '));

  it.each(RULES)('row `%s` names each tool\'s rule as the code has it', (rule) => {
    const row = rows.find((r) => r[0].includes(`(\`${rule}\`)`));
    expect(row, `no row for ${rule}`).toBeDefined();
    TOOLS.forEach((tool, i) => {
      const value = DEFINITIONS[tool][rule];
      const cell = row![i + 1];
      if (value === null) expect(cell, `${tool} ${rule}`).toBe('—');
      else expect(/`([^`]+)`/.exec(cell)?.[1], `${tool} ${rule}: ${cell}`).toBe(value);
    });
  });
});
