// The sim server for bench/dashboard.mjs, in a child process; sends its port to the parent.
import { startSimServer } from '../dist/sim/server.js';

const s = await startSimServer({ port: 0 });
process.send({ port: s.port });
