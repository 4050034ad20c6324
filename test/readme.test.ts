// The README is a user's guide: two commands for a fresh clone first, links that resolve, no lab notebook.
import { describe, it, expect } from 'vitest';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const root = join(__dirname, '..');
const read = (p: string) => readFileSync(join(root, p), 'utf8');

/** GitHub's heading anchor: lower case, punctuation dropped, each space a hyphen; repeats get -1, -2, … */
function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  const text = markdown.replace(/```[\s\S]*?```/g, '');
  for (const m of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = m[1].trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

/** Relative links of a markdown file that do not resolve to a file (and, with #anchor, to a heading in it). */
function brokenLinks(file: string): string[] {
  const text = read(file).replace(/```[\s\S]*?```/g, '');
  const bad: string[] = [];
  for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const link = m[1];
    if (/^[a-z]+:/i.test(link)) continue; // http(s), mailto
    const [path, hash] = link.split('#');
    const target = path ? resolve(dirname(join(root, file)), path) : join(root, file);
    if (!existsSync(target)) {
      bad.push(`${link}: no such file`);
      continue;
    }
    if (hash && statSync(target).isFile() && target.endsWith('.md') && !anchors(readFileSync(target, 'utf8')).has(hash)) bad.push(`${link}: no such heading`);
  }
  return bad;
}

describe('README.md', () => {
  const readme = read('README.md');

  it('starts with exactly two commands for a fresh clone: a benchmark on the embedded server, and the tests', () => {
    const first = readme.split(/^## /m)[1];
    expect(first.startsWith('Quick start')).toBe(true);
    const blocks = [...first.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]);
    expect(blocks).toHaveLength(1);
    const commands = blocks[0].split('\n').filter((l) => l.trim()).map((l) => l.replace(/\s+#.*$/, '').trim());
    expect(commands).toEqual(['npm ci && npm start', 'npm ci && npm test']);
  });

  it('says how to install tokenflood as a command', () => {
    expect(readme).toMatch(/npm install -g \.\/tokenflood-[\d.]+\.tgz/);
    expect(readme).toMatch(/npx --package \.\/tokenflood-[\d.]+\.tgz tokenflood/);
    expect(readme).toContain('docs/install.md');
  });

  it('keeps no lab notebook: no session notes, commit ids, load averages or paths outside the repository', () => {
    for (const phrase of [/load average/i, /issue \d+ baseline/i, /code at [0-9a-f]{7}/, /in that session/i, /\.\.\/shared\//, /before the issue/i, /re-measured/i])
      expect(readme, String(phrase)).not.toMatch(phrase);
  });

  it('states one figure per thing: TTFT error at 100 streams and start-up memory appear once', () => {
    expect(readme.match(/100 streams/g) ?? []).toHaveLength(1);
    expect(readme.match(/start-up plus one request/gi) ?? []).toHaveLength(1);
  });

  it.each(['README.md', 'docs/install.md', 'docs/performance.md', 'docs/live-metrics.md', 'docs/telemetry.md'])('%s: every relative link resolves (file and heading)', (file) => {
    expect(brokenLinks(file)).toEqual([]);
  });
});
