// One CSV cell: numbers rounded to 6 decimals, empty for null, quoted when needed, spreadsheet formulas defused.

export function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return Number.isFinite(v) ? String(Math.round(v * 1e6) / 1e6) : '';
  const s = Array.isArray(v) ? v.join(';') : String(v);
  // Quote when needed; a leading =,+,-,@ is prefixed so spreadsheets do not evaluate it as a formula.
  const safe = /^[=+\-@]/.test(s) ? `'${s}` : s;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}
