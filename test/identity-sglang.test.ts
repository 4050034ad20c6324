// The SGLang identity path (issue 32 item 19): a loopback server answering as SGLang does, its /metrics naming the
// engine (sglang: families) and GET /get_server_info returning its server arguments, scheduler info, internal_states
// and version flat in one object (sglang/srt/entrypoints/http_server.py); run.json server_identity keeps the engine
// arguments and drops the rest (a server's api_key among them).
import { describe, it, expect, afterEach } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { capture } from './io-capture.js';
import { chatChunk, DONE, usageChunk } from './fixtures/script-server.js';
import { tmpDir } from './helpers.js';

/** What SGLang's /get_server_info returns, trimmed: ServerArgs fields, scheduler info, internal_states, version. */
const SERVER_INFO = {
  model_path: 'Qwen/Qwen2.5-7B-Instruct',
  served_model_name: 'qwen-7b',
  tokenizer_path: 'Qwen/Qwen2.5-7B-Instruct',
  tp_size: 2,
  dp_size: 1,
  context_length: 32768,
  max_running_requests: 128,
  chunked_prefill_size: 8192,
  mem_fraction_static: 0.88,
  kv_cache_dtype: 'fp8_e5m2',
  api_key: 'sk-server-secret',
  host: '0.0.0.0',
  max_total_num_tokens: 412345,
  max_req_input_len: 32761,
  internal_states: [{ last_gen_throughput: 1234.5, avg_spec_accept_length: null }],
  version: '0.5.4\u001b[2J',
};

let server: Server | undefined;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

/** A minimal SGLang-like server: OpenAI chat streaming, sglang: metrics, /get_server_info (no /server_info: older releases). */
async function startSglangLike(): Promise<{ baseUrl: string; asked: string[] }> {
  const asked: string[] = [];
  server = createServer((req, res) => {
    const url = req.url ?? '';
    if (req.method === 'GET') asked.push(url);
    if (url === '/v1/models') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'qwen-7b', object: 'model' }] }));
    if (url === '/metrics') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('# TYPE sglang:num_running_reqs gauge\nsglang:num_running_reqs{model_name="qwen-7b"} 0.0\n# TYPE sglang:num_queue_reqs gauge\nsglang:num_queue_reqs{model_name="qwen-7b"} 0.0\n');
    if (url === '/get_server_info') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(SERVER_INFO));
    if (req.method === 'POST' && url === '/v1/chat/completions') {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(chatChunk({ role: 'assistant', content: '' }) + chatChunk({ content: 'hi' }) + chatChunk({ content: ' there' }) + usageChunk(12, 2) + DONE);
      });
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Not Found"}');
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, asked };
}

describe('server identity from SGLang', () => {
  it('run.json server_identity carries the engine arguments from /get_server_info, made inert, without secrets', async () => {
    const sg = await startSglangLike();
    const out = join(tmpDir(), 'run');
    const c = capture();
    expect(await main(['run', '--base-url', sg.baseUrl, '--requests', '4', '--concurrency', '2', '--input-tokens', '16', '--output-tokens', '2', '--scrape-interval', '0.2s', '--quiet', '--out', out], c.io), c.err).toBe(0);
    const id = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')).server_identity;
    expect(id.engine).toBe('sglang');
    expect(id.server_info).toEqual({
      model_path: 'Qwen/Qwen2.5-7B-Instruct',
      served_model_name: 'qwen-7b',
      tp_size: 2,
      dp_size: 1,
      context_length: 32768,
      max_running_requests: 128,
      max_total_num_tokens: 412345,
      chunked_prefill_size: 8192,
      mem_fraction_static: 0.88,
      kv_cache_dtype: 'fp8_e5m2',
      version: '0.5.4[2J',
    });
    // The newer path is asked first, the older one after its 404.
    expect(sg.asked.indexOf('/server_info')).toBeGreaterThanOrEqual(0);
    expect(sg.asked.indexOf('/get_server_info')).toBeGreaterThan(sg.asked.indexOf('/server_info'));
    expect(readFileSync(join(out, 'run.json'), 'utf8')).not.toContain('sk-server-secret');
  }, 60_000);
});
