// serve/capacity command flags: parsing, validation, output.
import { Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { registerCapacity } from '../cli/capacity.js';
import { registerServe, serveOptionsFromFlags } from '../cli/serve.js';
import { UsageError } from '../errors.js';

function program(): Command {
  const p = new Command().exitOverride();
  registerServe(p);
  registerCapacity(p);
  return p;
}

describe('tokenflood capacity', () => {
  afterEach(() => vi.restoreAllMocks());

  it('--json prints one JSON document', async () => {
    let out = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((s) => ((out += String(s)), true));
    await program().parseAsync(['capacity', '--model-profile', 'llama-3.1-70b', '--tp', '4', '--kv-dtype', 'fp16', '--input-tokens', '3072', '--output-tokens', '1024', '--json'], { from: 'user' });
    const r = JSON.parse(out);
    expect(r.kv_bytes_per_request).toBe(1342177280);
    expect(r.gpus).toBe(4);
  });

  it('prints a readable table', async () => {
    let out = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((s) => ((out += String(s)), true));
    await program().parseAsync(['capacity', '--concurrency', '64'], { from: 'user' });
    expect(out).toMatch(/KV capacity \/ replica\s+[\d,]+ tokens/);
    expect(out).toMatch(/bottleneck\s+decode memory bandwidth/);
  });

  it('reports every bad flag at once as a UsageError', async () => {
    const err = await program()
      .parseAsync(['capacity', '--tp', 'two', '--margin', '-1', '--weight-dtype', 'fp3'], { from: 'user' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).problems).toHaveLength(3);
  });
});

describe('tokenflood serve flags', () => {
  it('maps flags to server options, including --no-prefix-caching and --fault', () => {
    const o = serveOptionsFromFlags({ port: '0', gpu: 'a100-80gb', timeScale: '10', prefixCaching: false, fault: ['http429:0.1,retryAfterSeconds=3', 'stall,every=5,ms=200'] });
    expect(o).toEqual({ port: 0, gpu: 'a100-80gb', timeScale: 10, prefixCaching: false, faults: { http429: { rate: 0.1, retryAfterSeconds: 3 }, stall: { every: 5, ms: 200 } } });
    expect(serveOptionsFromFlags({ prefixCaching: true })).toEqual({});
  });

  it('rejects bad values with all problems', () => {
    try {
      serveOptionsFromFlags({ port: '99999', timeScale: 'fast', fault: ['explode:1'] });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(UsageError);
      expect((e as UsageError).problems.join('\n')).toMatch(/--time-scale: "fast" is not a number[\s\S]*unknown fault kind "explode"[\s\S]*--port/);
    }
  });

  it('--metrics-flavor takes vllm, sglang or tgi and names the flag otherwise', () => {
    expect(serveOptionsFromFlags({ metricsFlavor: 'tgi' })).toEqual({ metricsFlavor: 'tgi' });
    expect(() => serveOptionsFromFlags({ metricsFlavor: 'triton' })).toThrow(/--metrics-flavor: .*"vllm".*"sglang".*"tgi"/);
  });

  it('help lists every server option as a flag', () => {
    const help = program().commands.find((c) => c.name() === 'serve')!.helpInformation();
    for (const f of ['--port', '--host', '--gpu', '--model-profile', '--tp', '--max-num-seqs', '--max-num-batched-tokens', '--gpu-memory-utilization', '--max-model-len', '--block-size', '--no-prefix-caching', '--tokens-per-chunk', '--reasoning-share', '--time-scale', '--served-model-name', '--tokenizer', '--metrics-flavor', '--faults', '--fault'])
      expect(help).toContain(f);
  });
});
