// The live dashboard's options (--ui, --ui-port, --ui-host, --open): one schema and flag set for run and sweep.
import { z } from 'zod';
import { flagTable } from '../util/flags.js';

export const UiSchema = z.object({
  ui: z.boolean().default(false),
  uiPort: z.coerce.number({ message: 'expected a port number' }).int('expected a whole port number').min(0).max(65535, 'expected a port from 0 to 65535').optional(),
  uiHost: z.string().min(1).optional(),
  open: z.boolean().default(false),
});

export const UI_FLAGS = flagTable(UiSchema.shape, {
  ui: { help: 'serve a live dashboard of the run (charts, statistics, failures, stop, live load changes) on a local web page; the URL with its access token is printed (docs/dashboard.md)' },
  uiPort: { arg: 'port', help: 'with --ui: port of the dashboard', defaultText: 'a free port' },
  uiHost: { arg: 'host', help: 'with --ui: address the dashboard listens on; anything but loopback exposes it (token-protected) to the network and prints a warning', defaultText: '127.0.0.1' },
  open: { help: 'with --ui: open the dashboard in a browser, where one exists' },
});

export const UI_KEYS = ['ui', 'uiPort', 'uiHost', 'open'] as const;

/** --ui-port, --ui-host and --open without --ui would silently do nothing. */
export function uiProblems(o: { ui: boolean; uiPort?: number; uiHost?: string; open: boolean }): string[] {
  if (o.ui) return [];
  const given = [o.uiPort !== undefined && '--ui-port', o.uiHost !== undefined && '--ui-host', o.open && '--open'].filter(Boolean);
  return given.length ? [`${given.join(', ')}: only apply with --ui`] : [];
}
