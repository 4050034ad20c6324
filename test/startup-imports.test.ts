// Start-up cost: loading the CLI must not load packages only a rare path needs (HDR histogram, the sim server's prom-client, yaml,
// undici on h1 runs, gpt-tokenizer's tables).
import { describe, it, expect } from 'vitest';
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { tmpDir } from './helpers.js';
import { startRawServer, response, sseBody } from './fixtures/raw-server.js';

// CommonJS packages, even when imported from ESM, land in the CommonJS module cache: it tells what was loaded.
const loaded = (pkg: string): boolean => Object.keys(createRequire(import.meta.url).cache).some((f) => f.includes(`${sep}node_modules${sep}${pkg}${sep}`));

describe('start-up imports', () => {
  it('the whole CLI loads without hdr-histogram-js or prom-client; hdr-histogram-js loads once ITL gaps pass the exact limit', async () => {
    const { buildProgram } = await import('../src/cli/program.js');
    expect(buildProgram({ out: process.stdout, err: process.stderr }).commands.map((c) => c.name())).toContain('serve');
    const { ItlStore } = await import('../src/metrics/aggregator.js');
    expect(loaded('commander')).toBe(true); // the check sees packages the CLI does load
    expect(loaded('hdr-histogram-js')).toBe(false);
    expect(loaded('prom-client')).toBe(false);
    const s = new ItlStore(4);
    for (const gap of [20, 21, 19, 22]) s.add(gap);
    expect(loaded('hdr-histogram-js')).toBe(false);
    s.add(40); // the fifth gap moves the store to the histogram
    expect(s.exactMode).toBe(false);
    expect(loaded('hdr-histogram-js')).toBe(true);
    const st = s.stats();
    expect(st.count).toBe(5);
    expect(st.max).toBe(40);
    expect(st.p50).toBeCloseTo(21, 1);
  });

  it('yaml is loaded by the first YAML config file read, not by start-up', async () => {
    const { buildProgram } = await import('../src/cli/program.js');
    buildProgram({ out: process.stdout, err: process.stderr });
    expect(loaded('commander')).toBe(true);
    expect(loaded('yaml')).toBe(false);
    const { readConfigFile } = await import('../src/config/load.js');
    const file = join(tmpDir(), 'run.yaml');
    writeFileSync(file, 'concurrency: 7\nrequests: 3\n');
    const r = readConfigFile(file);
    expect(r.problems).toEqual([]);
    expect(r.values).toMatchObject({ concurrency: 7, requests: 3 });
    expect(loaded('yaml')).toBe(true);
    writeFileSync(file, 'concurrency: [1,\n');
    expect(readConfigFile(file).problems[0]).toMatch(/--config: .*run\.yaml: cannot read config file: /);
  });

  it('a run on the h1 transport (preflight, /metrics scrape, prompts of exact length) loads neither undici, gpt-tokenizer nor ws', async () => {
    const raw = await startRawServer((sock) => sock.write(response(200, sseBody(), { 'content-type': 'text/event-stream' })));
    try {
      const { run } = await import('../src/run.js');
      const res = await run({ validate: false, baseUrl: raw.baseUrl, requests: 3, concurrency: 1, inputTokens: 40, outputTokens: 4, quiet: true, out: join(tmpDir(), 'run') });
      expect(res.records.map((r) => [r.status, r.expected_input_tokens, r.output_tokens])).toEqual([['ok', 40, 1], ['ok', 40, 1], ['ok', 40, 1]]);
      // The preflight and the /metrics probe went to the server (over the h1 pool), then the three requests.
      expect(raw.seen).toEqual(expect.arrayContaining(['GET /v1/models', 'GET /metrics', 'POST /v1/chat/completions']));
      expect(loaded('commander')).toBe(true);
      expect(loaded('undici')).toBe(false);
      expect(loaded('gpt-tokenizer')).toBe(false);
      expect(loaded('ws')).toBe(false); // only WebSocket runs load it
      expect(loaded('jpeg-js')).toBe(false); // the media encoders load only for runs that send media
    } finally {
      await raw.close();
    }
  });
});
