// Builds dist/ (npm run build) when it is missing or older than its sources: `prepare` on npm ci / npm install and git
// installs (npm runs only prepare for a git dependency, so a git install must build), and `start`/`test`, so a fresh
// clone builds once, not twice. An unpacked tarball has no src/ and nothing to build.
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const stamp = join(root, 'dist', '.build-stamp');
if (!existsSync(join(root, 'src'))) process.exit(0);

/** The newest modification time of a file or of any file below a folder. */
function newest(p) {
  if (!existsSync(p)) return 0;
  const st = statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  let m = 0;
  for (const e of readdirSync(p)) m = Math.max(m, newest(join(p, e)));
  return m;
}

const inputs = ['src', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts/vendor-assets.mjs', 'scripts/bundle.mjs'];
const built = existsSync(stamp) && existsSync(join(root, 'dist', 'bin', 'tokenflood.js')) ? statSync(stamp).mtimeMs : 0;
if (built > 0 && inputs.every((i) => newest(join(root, i)) <= built)) process.exit(0);
const r = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
if (r.status !== 0) process.exit(r.status ?? 1);
writeFileSync(stamp, `${new Date().toISOString()}\n`);
