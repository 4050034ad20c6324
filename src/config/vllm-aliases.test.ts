// vLLM bench serve's flags mapped to tokenflood's: meanings, vLLM's defaults, and refusals that name the tokenflood flag.
import { describe, it, expect } from 'vitest';
import { goodputSlo, mapVllmFlags, vllmLength } from './vllm-aliases.js';

describe('vLLM flag aliases', () => {
  it('leave a plain tokenflood command line alone', () => {
    const given = { concurrency: '4', seed: '3', baseUrl: 'http://h:8000' };
    expect(mapVllmFlags({}, given)).toEqual({ flags: given, notes: [], problems: [] });
  });

  it('take --ignore-eos alone as the tokenflood default spelled out, not as a pasted vLLM line', () => {
    const given = { concurrency: '4', seed: '3' };
    expect(mapVllmFlags({ vllmIgnoreEos: true }, given)).toEqual({ flags: { ...given, ignoreEos: true }, notes: [], problems: [] });
    expect(mapVllmFlags({ vllmIgnoreEos: true }, { ignoreEos: false }).problems).toEqual(['--ignore-eos: --no-ignore-eos is given too: give one of the two']);
  });

  it('map a pasted vllm bench serve line to the tokenflood flags of the same meaning', () => {
    const m = mapVllmFlags(
      { vllmNumPrompts: '20', vllmMaxConcurrency: '4', vllmRequestRate: 'inf', vllmRandomInputLen: '64', vllmRandomOutputLen: '16', vllmGoodput: ['ttft:500', 'e2el:2000'], vllmMetricPercentiles: '99.9,50', vllmIgnoreEos: true, vllmDatasetName: 'random' },
      { backend: 'vllm', model: 'm', baseUrl: 'http://h:8000', endpoint: '/v1/completions', seed: '5' },
    );
    expect(m.problems).toEqual([]);
    expect(m.flags).toEqual({
      backend: 'openai-completions', endpoint: 'completions', model: 'm', baseUrl: 'http://h:8000/v1', requests: 20, concurrency: 4, inputTokens: '64', outputTokens: '16',
      slo: 'ttft_max=500ms,e2e_max=2000ms', percentiles: '50,99.9', datasetSeed: '5', ignoreEos: true,
    });
  });

  it("apply vLLM's defaults once a vLLM flag is given: 1000 prompts at once, 1024 in, 128 out, /v1/completions, no ignore_eos", () => {
    const m = mapVllmFlags({ vllmDatasetName: 'random' }, {});
    expect(m.flags).toEqual({ endpoint: 'completions', requests: 1000, concurrency: 1000, inputTokens: '1024', outputTokens: '128', ignoreEos: false });
    expect(m.notes.join('\n')).toMatch(/no --ignore-eos/);
    // A finite rate is an open loop capped by --max-concurrency.
    expect(mapVllmFlags({ vllmRequestRate: '2.5', vllmMaxConcurrency: '8' }, {}).flags).toMatchObject({ rate: 2.5, concurrency: 8 });
    expect(mapVllmFlags({ vllmRequestRate: '2.5' }, {}).flags.concurrency).toBeUndefined();
  });

  it('spread lengths as vLLM: integer-uniform in [floor(n(1−r)), ceil(n(1+r))]', () => {
    expect(vllmLength(64, 0)).toBe('64');
    expect(vllmLength(100, 0.25)).toBe('uniform:75,125');
    expect(vllmLength(7, 0.5)).toBe('uniform:3,11');
    expect(vllmLength(1, 0.9)).toBe('uniform:1,2');
    expect(mapVllmFlags({ vllmRandomInputLen: '100', vllmRandomRangeRatio: '0.25' }, {}).flags.outputTokens).toBe('uniform:96,160');
  });

  it('read --goodput as per-request limits in ms', () => {
    const problems: string[] = [];
    expect(goodputSlo(['ttft:500', 'tpot:50.5', 'e2el:1000'], problems)).toBe('ttft_max=500ms,tpot_max=50.5ms,e2e_max=1000ms');
    expect(goodputSlo(['itl:5', 'ttft=3'], problems)).toBeUndefined();
    expect(problems).toEqual([expect.stringMatching(/^--goodput: .*"itl:5"/), expect.stringMatching(/^--goodput: .*"ttft=3"/)]);
  });

  it('refuse what differs, naming the tokenflood flag to use, all problems at once', () => {
    const m = mapVllmFlags(
      { vllmDatasetName: 'sonnet', vllmDatasetPath: 'x.json', vllmRandomRangeRatio: '1', vllmMaxConcurrency: '4', vllmRequestRate: 'fast', vllmMetricPercentiles: '100' },
      { concurrency: '2', endpoint: '/v1/embeddings' },
    );
    expect(m.problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^--dataset-name: sonnet is not supported.*sharegpt or custom with --dataset-path FILE, or --dataset FILE/),
        expect.stringMatching(/^--random-range-ratio: expected a number with 0 <= r < 1/),
        expect.stringMatching(/^--max-concurrency: means --concurrency, which is given too/),
        expect.stringMatching(/^--request-rate: expected requests per second/),
        expect.stringMatching(/^--metric-percentiles: "100" is not a percentile/),
        expect.stringMatching(/^--endpoint: \/v1\/embeddings: .*--endpoint chat\|completions/),
      ]),
    );
  });
});

describe('vLLM --sharegpt-output-len', () => {
  it('is --max-tokens for a ShareGPT file, and refused for other prompts', () => {
    const m = mapVllmFlags({ vllmDatasetName: 'sharegpt', vllmDatasetPath: 'sg.json', vllmSharegptOutputLen: '64' }, {});
    expect(m.problems).toEqual([]);
    expect(m.flags).toMatchObject({ dataset: 'sg.json', datasetFormat: 'sharegpt', maxTokens: 64 });
    expect(m.notes).toContain('--sharegpt-output-len 64 = --max-tokens 64');
    expect(mapVllmFlags({ vllmDatasetName: 'random', vllmSharegptOutputLen: '64' }, {}).problems).toEqual([
      '--sharegpt-output-len: vLLM applies it to --dataset-name sharegpt only, not random; give --max-tokens N for other prompts',
    ]);
    expect(mapVllmFlags({ vllmDatasetName: 'sharegpt', vllmDatasetPath: 'sg.json', vllmSharegptOutputLen: '0' }, {}).problems).toHaveLength(1);
  });
});
