// JSON outputs use snake_case field names; TypeScript objects use camelCase. This converts deeply.

export const toSnake = (k: string): string => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

export function snakeKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(snakeKeys);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [toSnake(k), snakeKeys(x)]));
  return v;
}
