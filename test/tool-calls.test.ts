// Tool-call workloads: --tools N sends function definitions; a streamed tool-call answer is output (TTFT, ITL, tokens).
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { join } from 'node:path';
import { run } from '../src/run.js';
import { classifyData } from '../src/backends/openai-common.js';
import { startScriptServer, chatChunk, usageChunk, DONE, type Script, type ScriptServer } from './fixtures/script-server.js';
import { tmpDir } from './helpers.js';

const call = (extra: Record<string, unknown>) => chatChunk({ tool_calls: [{ index: 0, ...extra }] });
// A tool-call answer as vLLM streams it: a role chunk, the call's id and name, then the arguments in pieces.
const toolAnswer: Script = {
  steps: [
    { at: 0, write: chatChunk({ role: 'assistant', content: '' }) },
    { at: 20, write: call({ id: 'call_1', type: 'function', function: { name: 'search_files', arguments: '' } }) },
    { at: 30, write: call({ function: { arguments: '{"query": ' } }) },
    { at: 40, write: call({ function: { arguments: '"main.ts"}' } }) + usageChunk(900, 12) + DONE },
  ],
};
let srv: ScriptServer;
beforeAll(async () => void (srv = await startScriptServer(() => toolAnswer)));
afterAll(async () => srv?.close());

describe('tool calls', () => {
  it('a tool-call delta is generated text, not a role chunk', () => {
    const info = classifyData(JSON.stringify({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"q": 1' } }] } }] }));
    expect([info.kind, info.answer]).toEqual(['a', '{"q": 1']);
  });

  it('--tools 8 sends eight definitions with tool_choice auto; TTFT is the first tool-call chunk', async () => {
    const n = srv.bodies.length;
    const res = await run({ validate: false, baseUrl: srv.baseUrl, requests: 3, concurrency: 1, inputTokens: 32, outputTokens: 12, tools: 8, quiet: true, out: join(tmpDir(), 'r') });
    const body = srv.bodies[n] as { tools: { type: string; function: { name: string; parameters: unknown } }[]; tool_choice: string };
    expect(body.tools).toHaveLength(8);
    expect(new Set(body.tools.map((t) => t.function.name)).size).toBe(8);
    expect(body.tool_choice).toBe('auto');
    expect(res.records.every((r) => r.status === 'ok')).toBe(true);
    // The first token is the call's name chunk at ~20 ms, not the empty role chunk at 0.
    for (const r of res.records) expect(r.ttft_ms!).toBeGreaterThanOrEqual(15);
    expect(res.summary.ttft_ms.count).toBe(3);
    expect(res.records[0].output_tokens).toBe(12);
  });

  it('--tools with the completions endpoint is exit 2 before anything is sent', async () => {
    const n = srv.bodies.length;
    await expect(run({ validate: false, baseUrl: srv.baseUrl, requests: 1, endpoint: 'completions', tools: 4, quiet: true, out: join(tmpDir(), 'x') })).rejects.toThrow(/--tools: tool definitions go with --endpoint chat/);
    expect(srv.bodies.length).toBe(n);
  });
});
