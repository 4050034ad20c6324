// --ui for run and sweep: start the dashboard before the run, print its URL, and keep it up after a run on a terminal.
import type { RunConfig } from '../config/schema.js';
import type { Dashboard } from '../ui/dashboard.js';
import type { Out } from './io.js';
import { UsageError } from '../errors.js';

/** The dashboard for a command run with --ui (undefined without); `onStop` is the command's own Ctrl-C handler. */
export async function startCliDashboard(c: Pick<RunConfig, 'ui' | 'uiHost' | 'uiPort' | 'open'>, out: Out, info: NodeJS.WritableStream, onStop: () => void, runs: 'one' | 'many' = 'one'): Promise<Dashboard | undefined> {
  if (!c.ui) return undefined;
  // Loaded only with --ui: a run without the dashboard pays nothing for its page and server at start-up.
  const { exposedHostWarning, startDashboard } = await import('../ui/dashboard.js');
  const { openBrowser } = await import('../ui/open.js');
  const host = c.uiHost ?? '127.0.0.1';
  const warning = exposedHostWarning(host);
  if (warning) out.err.write(`${warning}\n`);
  let d: Dashboard;
  try {
    d = await startDashboard({ host, port: c.uiPort ?? 0, onStop, runs });
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const why = err.code === 'EADDRINUSE' ? `port ${c.uiPort} is in use` : err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND' ? `${host} is not an address of this machine` : err.message;
    throw new UsageError([`${err.code === 'EADDRINUSE' || err.code === 'EACCES' ? '--ui-port' : '--ui-host'}: cannot serve the dashboard: ${why}`]);
  }
  info.write(`tokenflood: live dashboard at ${d.url}\n`);
  if (c.open) openBrowser(d.url);
  return d;
}

/**
 * After the run: on a terminal the page stays up (its downloads and report link still work) until Ctrl-C;
 * otherwise (scripts, CI) it closes at once so the command ends.
 */
export async function endCliDashboard(d: Dashboard | undefined, out: Out, interrupted: () => boolean): Promise<void> {
  if (!d) return;
  d.finish();
  if (process.stdout.isTTY && process.stdin.isTTY && !interrupted()) {
    out.err.write(`tokenflood: run finished; the dashboard stays up at ${d.url} until you press Ctrl-C\n`);
    await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
  }
  await d.close();
}
