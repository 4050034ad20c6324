// Where a transport's CPU goes: one bench/h1/client.mjs run under `node --cpu-prof`, top self-time functions printed.
// Usage: node bench/h1/profile.mjs <driver> [streams=1000]   (drivers: see client.mjs)
import { fork, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { topFunctions } from '../top-functions.mjs';

const here = (f) => fileURLToPath(new URL(f, import.meta.url));
const [driver = 'h1', streams = '1000'] = process.argv.slice(2);
const em = fork(here('../emitter.mjs'), ['{"intervalMs":20}'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const port = await new Promise((r) => em.on('message', (m) => m.type === 'ready' && r(m.port)));
const dir = mkdtempSync(join(tmpdir(), 'h1prof-'));
const sc = { driver, port, streams: Number(streams), tokens: 100, warmMs: 3500, windowMs: 4000, rampMs: 2000 };
const r = spawnSync(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, here('./client.mjs'), JSON.stringify(sc)], { encoding: 'utf8' });
em.kill();
const res = JSON.parse(r.stdout.trim().split('\n').pop());
console.log(`${driver} ${streams}: ${res.eventsPerS.toFixed(0)} events/s, ${res.cpuUsPerEvent.toFixed(1)} µs/ev (profiled: slower than unprofiled)`);
const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
for (const t of topFunctions(JSON.parse(readFileSync(join(dir, file), 'utf8')), 25)) console.log(`${String(t.pct).padStart(5)}%  ${t.fn}`);
rmSync(dir, { recursive: true, force: true });
