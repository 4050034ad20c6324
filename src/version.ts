// The package version, read once from package.json.
import { readFileSync } from 'node:fs';
import { packagePath } from './package-root.js';

const pkg = JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string };
export const VERSION: string = pkg.version;
