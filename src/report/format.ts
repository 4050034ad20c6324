// Number and table formatting for terminal output.
import { stripControls } from '../util/terminal-text.js';

export function fmt(x: number | null | undefined, digits = 2): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '-';
  const a = Math.abs(x);
  if (a >= 1000) return x.toFixed(0);
  if (a >= 100) return x.toFixed(1);
  return x.toFixed(digits);
}

export function pct(x: number): string {
  return `${(x * 100).toFixed(x > 0 && x < 0.01 ? 2 : 1)}%`;
}

/** A plain aligned table: first column left-aligned, the rest right-aligned. */
export function table(header: string[], rows: string[][]): string {
  const all = [header, ...rows];
  const widths = header.map((_, c) => Math.max(...all.map((r) => (r[c] ?? '').length)));
  const line = (r: string[]) => r.map((v, c) => (c === 0 ? v.padEnd(widths[c]) : v.padStart(widths[c]))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** Untrusted text (server errors, model output) made safe for a terminal: control characters removed, length capped. */
export function safeTerminalText(s: string, max = 160): string {
  const clean = stripControls(s).replace(/[\n\t]/g, ' ');
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}
