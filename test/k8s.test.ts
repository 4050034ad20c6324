// tokenflood k8s: bad input is exit 2 naming the flag; docs/distributed.md shows what the generator writes; collect drives kubectl.
import { describe, it, expect } from 'vitest';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { capture } from './io-capture.js';
import { tmpDir } from './helpers.js';

const RUN = ['--base-url', 'http://127.0.0.1:9/v1', '--concurrency', '8', '--requests', '40'];

async function cli(argv: string[]) {
  const c = capture();
  const code = await main(argv, c.io);
  return { code, out: c.out, err: c.err };
}

describe('tokenflood k8s manifest', () => {
  const bad: [string[], RegExp][] = [
    [['--image', 'x', '--', ...RUN], /--shards: give the number of shards/],
    [['--shards', '0', '--image', 'x', '--', ...RUN], /--shards: expected a whole number/],
    [['--shards', '3', '--', ...RUN], /--image: give the container image/],
    [['--shards', '3', '--image', 'x', '--name', 'Bad_Name', '--', ...RUN], /--name: expected lowercase/],
    [['--shards', '3', '--image', 'x', '--start-margin', 'soon', '--', ...RUN], /--start-margin: /],
    [['--shards', '3', '--image', 'x', '--volume-mode', 'nfs', '--', ...RUN], /--volume-mode: expected per-shard or shared/],
    [['--shards', '3', '--image', 'x', '--deadline', '5m', '--barrier-timeout', '10m', '--', ...RUN], /--deadline 5m: must be longer than --barrier-timeout/],
    [['--shards', '3', '--image', 'x', '--', ...RUN, '--start-at', '2026-12-01T18:00:00Z'], /run flag --start-at: the shards start together after a barrier/],
    [['--shards', '3', '--image', 'x', '--', ...RUN, '--api-key', 'sk-secret-123456'], /--api-key: it would be written into the ConfigMap.*--api-key-secret/],
    [['--shards', '3', '--image', 'x', '--', ...RUN, '--out', 'd'], /run flag --out: the manifest sets it/],
    [['--shards', '3', '--image', 'x', '--', '--concurrency', '8'], /give --base-url/],
    [['--shards', '3', '--image', 'x', '--', ...RUN, '--bogus'], /run flags: unknown option '--bogus'/],
    [['--shards', '16', '--image', 'x', '--', ...RUN], /--concurrency 8 leaves shards without a stream/],
    [['--shards', '3', '--image', 'x', '--', ...RUN, '--max-tokens', '0'], /run flags: --max-tokens/],
  ];
  for (const [args, re] of bad)
    it(`rejects ${args.join(' ').slice(0, 70)} with exit 2`, async () => {
      const r = await cli(['k8s', 'manifest', ...args]);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(re);
      expect(r.out).toBe('');
      expect(r.err).not.toContain('sk-secret-123456');
    });

  it('docs/distributed.md shows exactly what its documented command writes', async () => {
    const doc = readFileSync(join(__dirname, '..', 'docs', 'distributed.md'), 'utf8');
    const cmdBlock = doc.split('<!-- manifest:command -->')[1].split('```')[1];
    const line = cmdBlock.split('\n').find((l) => l.startsWith('tokenflood k8s manifest'))!;
    const shown = doc.split('<!-- manifest:start -->')[1].split('<!-- manifest:end -->')[0].replace(/^\s*```yaml\n/, '').replace(/```\s*$/, '');
    const r = await cli(line.split(/\s+/).slice(1));
    expect(r.code, r.err).toBe(0);
    expect(shown).toBe(r.out);
    // And the Dockerfile shown is the repository's.
    expect(doc).toContain(readFileSync(join(__dirname, '..', 'Dockerfile'), 'utf8'));
  });

  it('warns when a shard would get more streams than one reads within the timing-error figures', async () => {
    const r = await cli(['k8s', 'manifest', '--shards', '2', '--image', 'x', '--', '--base-url', 'http://127.0.0.1:9/v1', '--concurrency', '2000', '--requests', '4000']);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/WARNING: 1000 streams per shard/);
  });
});

describe('tokenflood k8s collect', () => {
  it('without kubectl: exit 2 and the steps to run by hand', async () => {
    const r = await cli(['k8s', 'collect', '--kubectl', join(tmpDir(), 'no-kubectl'), '--name', 'llama']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('not found');
    expect(r.err).toContain('kubectl cp llama-collect:/results results/k8s');
    expect(r.err).toContain('claimName: llama-results');
  });

  it('with kubectl: applies the reader pod, waits, copies and deletes it', async () => {
    const dir = tmpDir();
    const log = join(dir, 'calls.log');
    const kubectl = join(dir, 'kubectl');
    // A stand-in kubectl that logs its arguments and stdin, and fails nothing.
    writeFileSync(kubectl, `#!/bin/sh\nprintf "%s\\n" "$*" >> ${log}\nif [ "$2" = "apply" ] || [ "$3" = "apply" ]; then cat >> ${log}; fi\nexit 0\n`);
    chmodSync(kubectl, 0o755);
    const r = await cli(['k8s', 'collect', '--kubectl', kubectl, '--name', 'llama', '--namespace', 'loadtest', '--to', join(dir, 'out')]);
    expect(r.code, r.err).toBe(0);
    const calls = readFileSync(log, 'utf8');
    const order = ['version --client', '-n loadtest apply -f -', 'kind: Pod', '-n loadtest wait --for=condition=Ready pod/llama-collect', `-n loadtest cp llama-collect:/results ${join(dir, 'out')}`, '-n loadtest delete pod llama-collect'];
    let at = -1;
    for (const o of order) {
      const i = calls.indexOf(o);
      expect(i, o).toBeGreaterThan(at);
      at = i;
    }
    expect(existsSync(kubectl)).toBe(true);
  });
});
