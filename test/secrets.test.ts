// Hostile servers: echoed credentials never reach a file or the terminal; server text cannot drive the terminal.
import { describe, it, expect, afterEach } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { startHostileServer, sseChunk, type HostileServer } from './fixtures/hostile-server.js';
import { tmpDir } from './helpers.js';
import { capture } from './io-capture.js';

let server: HostileServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Every file under `dir`, as text. */
function allFiles(dir: string): { file: string; text: string }[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? allFiles(p) : [{ file: p, text: readFileSync(p, 'utf8') }];
  });
}

// Each secret has "ECHOED" in its middle: a redacted form (`sk-...CRET`, `***`) never contains it.
const KEY = 'sk-proj-ECHOED0123456789abcdefSECRET';
const SECRETS = {
  apiKey: KEY,
  xAuthKey: 'xauth-ECHOED-9876543210',
  portkey: 'portkey-ECHOED-1122334455',
  subscription: 'subkey-ECHOED-5566778899',
  urlKey: 'urlkey-ECHOED-13579',
  bodyKey: 'bodykey-ECHOED-24680',
};

// Control characters a terminal acts on (everything but newline and tab), C1 controls included.
// eslint-disable-next-line no-control-regex
const TERMINAL_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
const EVIL_MODEL = 'evil\u001b]0;pwned-title\u0007\u001b[2J\u009b31mmodel';
const EVIL_ERROR = 'boom \u001b[2J\u001b]8;;http://x\u0007link\u001b\\ \u009d0;t\u009c lone\u001b end';

describe.each(['h1', 'undici'] as const)('hostile servers (transport %s)', (transport) => {
  it('a server echoing every credential in a 401 body and a 200 stream error event: no secret in any file or on the terminal', async () => {
    server = await startHostileServer((req, res) => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ data: [{ id: 'm1' }] }));
        return;
      }
      let bodyKey = '';
      try {
        bodyKey = String((JSON.parse(req.body) as { api_key?: string }).api_key);
      } catch {
        /* no body key */
      }
      const h = req.headers;
      const echo = `Incorrect API key provided: ${String(h.authorization)}; x-auth-key ${String(h['x-auth-key'])}; portkey ${String(h['portkey-key'])}; sub ${String(h['x-subscription-key'])}; url ${req.url}; body ${bodyKey}`;
      const n = server!.seen.filter((s) => s.method === 'POST').length;
      if (n % 2 === 1) {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: echo } }));
      } else {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`data: ${JSON.stringify({ error: { message: echo } })}\n\n`);
      }
    });
    const out = join(tmpDir(), 'run');
    const c = capture();
    const code = await main(
      [
        'run',
        '--no-validate',
        '--base-url', `${server.origin}/v1?api-key=${SECRETS.urlKey}&api-version=2024-06-01`,
        '--api-key', KEY,
        '--header', `X-Auth-Key: ${SECRETS.xAuthKey}`,
        '--header', `Portkey-Key: ${SECRETS.portkey}`,
        '--header', `X-Subscription-Key: ${SECRETS.subscription}`,
        '--extra-body', JSON.stringify({ api_key: SECRETS.bodyKey, chat_template_kwargs: { enable_thinking: false } }),
        '--requests', '4', '--concurrency', '1', '--input-tokens', '8', '--output-tokens', '4',
        '--transport', transport, '--out', out,
      ],
      c.io,
    );
    expect(code, c.err).toBe(0);
    const rep = capture();
    expect(await main(['report', out, '--html'], rep.io)).toBe(0);

    // The secrets were really sent, and really echoed back (so the test is not vacuous).
    const post = server.seen.find((s) => s.method === 'POST')!;
    expect(post.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(post.headers['x-auth-key']).toBe(SECRETS.xAuthKey);
    expect(post.url).toContain(SECRETS.urlKey);
    expect(post.body).toContain(SECRETS.bodyKey);
    const files = allFiles(out);
    expect(files.map((f) => f.file.slice(out.length + 1)).sort()).toEqual(expect.arrayContaining(['report.html', 'requests.jsonl', 'run.json', 'summary.json']));
    const texts = [...files, { file: 'stdout', text: c.out }, { file: 'stderr', text: c.err }, { file: 'report stdout', text: rep.out }, { file: 'report stderr', text: rep.err }];
    for (const { file, text } of texts)
      for (const [name, secret] of Object.entries(SECRETS)) expect.soft(text.includes(secret), `${name} in ${file}`).toBe(false);
    const records = readFileSync(join(out, 'requests.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { status: string; http_status: number | null; error: string });
    expect(records.map((r) => r.status)).toEqual(['http_error', 'http_error', 'http_error', 'http_error']);
    expect(records[0].http_status).toBe(401);
    expect(records[0].error).toContain('Incorrect API key provided: Bearer sk-...CRET');
    expect(records[1].error).toMatch(/error event in stream: .*Incorrect API key provided: Bearer sk-\.\.\.CRET/);

    // The rest of the configuration is still written as given.
    const meta = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8'));
    expect(meta.target_url).toBe(`${server.origin}/v1?api-key=***&api-version=2024-06-01`);
    expect(meta.config.extra_body).toEqual({ api_key: '***', chat_template_kwargs: { enable_thinking: false } });
    expect(meta.config.header).toEqual(['X-Auth-Key: ...3210', 'Portkey-Key: ...4455', 'X-Subscription-Key: ...8899']);
  });

  it('model ids and error text from a server cannot drive the terminal (run and report)', async () => {
    server = await startHostileServer((req, res) => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ data: [{ id: EVIL_MODEL }] }));
        return;
      }
      const n = server!.seen.filter((s) => s.method === 'POST').length;
      if (n === 1) {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(EVIL_ERROR);
      } else {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(sseChunk('hi') + 'data: [DONE]\n\n');
      }
    });
    const out = join(tmpDir(), 'run');
    const c = capture();
    expect(await main(['run', '--no-validate', '--base-url', `${server.origin}/v1`, '--requests', '2', '--concurrency', '1', '--input-tokens', '8', '--output-tokens', '4', '--transport', transport, '--out', out], c.io)).toBe(0);
    const rep = capture();
    expect(await main(['report', out], rep.io)).toBe(0);
    // The server did send the model id and the error to the client: it is shown, inert.
    expect(JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')).model).toBe(EVIL_MODEL);
    for (const [name, text] of [['run stdout', c.out], ['run stderr', c.err], ['report stdout', rep.out], ['report stderr', rep.err]]) {
      expect(TERMINAL_CONTROL.exec(text)?.[0].codePointAt(0)?.toString(16), name).toBeUndefined();
      if (name.endsWith('stdout')) expect(text, name).toMatch(/evil\]0;pwned-title\[2J31mmodel/);
    }
    expect(c.out).toMatch(/boom \[2J\]8;;http:\/\/xlink\\ 0;t lone end/);
  });

  it('sweep: echoed credentials and a hostile model id stay out of sweep files and the terminal', async () => {
    server = await startHostileServer((req, res) => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ data: [{ id: EVIL_MODEL }] }));
        return;
      }
      if (server!.seen.filter((s) => s.method === 'POST').length === 1) {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${String(req.headers.authorization)} at ${req.url} ${EVIL_ERROR}` } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(sseChunk('hi') + 'data: [DONE]\n\n');
    });
    const out = join(tmpDir(), 'sweep');
    const c = capture();
    const code = await main(
      ['sweep', '--no-validate', '--base-url', `${server.origin}/v1?api-key=${SECRETS.urlKey}`, '--api-key', KEY, '--header', `X-Auth-Key: ${SECRETS.xAuthKey}`, '--concurrency', '1,2', '--requests', '2', '--input-tokens', '8', '--output-tokens', '2', '--transport', transport, '--out', out],
      c.io,
    );
    expect(code, c.err).toBe(0);
    expect(server.seen.filter((s) => s.method === 'POST').length).toBe(4);
    // API requests carry the URL's key; the /metrics scrape carries no credentials (docs/telemetry.md).
    expect(server.seen.filter((s) => s.url !== '/metrics').every((s) => s.url.endsWith(`?api-key=${SECRETS.urlKey}`))).toBe(true);
    expect(server.seen.filter((s) => s.url === '/metrics').every((s) => !JSON.stringify(s).includes(KEY))).toBe(true);
    const texts = [...allFiles(out), { file: 'stdout', text: c.out }, { file: 'stderr', text: c.err }];
    expect(texts.length).toBeGreaterThan(6);
    for (const { file, text } of texts) for (const [name, secret] of Object.entries(SECRETS)) expect.soft(text.includes(secret), `${name} in ${file}`).toBe(false);
    for (const [name, text] of [['stdout', c.out], ['stderr', c.err]]) expect(TERMINAL_CONTROL.exec(text)?.[0].codePointAt(0)?.toString(16), name).toBeUndefined();
    expect(JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8')).target_url).toBe(`${server.origin}/v1?api-key=***`);
  });
});

describe.each(['h1', 'undici'] as const)('secrets echoed in server text that is shown, not sent (transport %s)', (transport) => {
  it('a key echoed in the /models id and in a rejected usage value: not in the results folder name, any file or the terminal', async () => {
    server = await startHostileServer((req, res) => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ data: [{ id: `m-${String(req.headers.authorization)}-${String(req.headers['x-auth-key'])}` }] }));
        return;
      }
      const usage = { prompt_tokens: 8, completion_tokens: `n ${String(req.headers.authorization)}`, total_tokens: 9 };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(sseChunk('hi there') + `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', choices: [], usage })}\n\n` + 'data: [DONE]\n\n');
    });
    // No --out: the default folder is named after the model id.
    const cwd = tmpDir();
    const before = process.cwd();
    process.chdir(cwd);
    const c = capture();
    try {
      const code = await main(['run', '--no-validate', '--base-url', `${server.origin}/v1`, '--api-key', KEY, '--header', `X-Auth-Key: ${SECRETS.xAuthKey}`, '--requests', '2', '--concurrency', '1', '--input-tokens', '8', '--output-tokens', '4', '--transport', transport], c.io);
      expect(code, c.err).toBe(0);
    } finally {
      process.chdir(before);
    }
    // The model was requested as the server named it, secret and all (so the echo was real).
    const post = server.seen.find((s) => s.method === 'POST')!;
    expect((JSON.parse(post.body) as { model: string }).model).toContain(KEY);
    const [dir] = readdirSync(join(cwd, 'results'));
    for (const [name, secret] of Object.entries(SECRETS)) expect(dir.includes(secret), `${name} in the folder name`).toBe(false);
    const out = join(cwd, 'results', dir);
    const records = readFileSync(join(out, 'requests.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { usage_rejected: string | null });
    expect(records[0].usage_rejected).toMatch(/completion_tokens/);
    const texts = [...allFiles(out), { file: 'stdout', text: c.out }, { file: 'stderr', text: c.err }];
    for (const { file, text } of texts) for (const [name, secret] of Object.entries(SECRETS)) expect.soft(text.includes(secret), `${name} in ${file}`).toBe(false);
  });
});

describe('bad input that holds a secret', () => {
  it('invalid --extra-body JSON: exit 2 naming the flag, the text (with its key) not quoted, nothing sent', async () => {
    server = await startHostileServer((_req, res) => res.end());
    const c = capture();
    expect(await main(['run', '--no-validate', '--base-url', `${server.origin}/v1`, '--extra-body', `{"api_key": ${SECRETS.bodyKey}}`, '--quiet'], c.io)).toBe(2);
    expect(c.err).toMatch(/--extra-body: expected a JSON object/);
    expect(c.err).not.toContain(SECRETS.bodyKey.slice(0, 8));
    expect(server.seen).toEqual([]);
  });
});
