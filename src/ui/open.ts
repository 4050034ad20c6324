// --open: start the desktop's browser on the dashboard URL where one exists; silently nothing where none does.
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

function onPath(cmd: string): boolean {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    try {
      accessSync(join(dir, cmd), constants.X_OK);
      return true;
    } catch {
      /* not here */
    }
  }
  return false;
}

/** The opener command of this platform, or undefined (no opener installed, or a Linux box without a display). */
export function opener(platform = process.platform, env = process.env): [string, string[]] | undefined {
  if (platform === 'darwin') return ['open', []];
  if (platform === 'win32') return ['cmd', ['/c', 'start', '""']];
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return undefined;
  return onPath('xdg-open') ? ['xdg-open', []] : undefined;
}

export function openBrowser(url: string): void {
  const o = opener();
  if (!o) return;
  try {
    const child = spawn(o[0], [...o[1], url], { stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
  } catch {
    /* no browser: the URL is printed anyway */
  }
}
