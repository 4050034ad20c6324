// The sim server: an OpenAI-compatible HTTP server (node:http) shaped like vLLM, backed by the engine in real time.
import { priorityRefusal } from './engine/scheduling.js';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { loadTokenizer } from '../dataset/tokenizer.js';
import { UsageError } from '../errors.js';
import { createRng } from '../util/rng.js';
import { resolveEngine } from './engine/config.js';
import { tuningOptions } from './engine/tuning.js';
import { contextLengthError, createEngine } from './engine/engine.js';
import { blockHashesFromIds } from './engine/hash.js';
import { decideOutputTokens } from './engine/length.js';
import { outsideEngineMs } from './engine/overheads.js';
import { sendError, sendJson, sendOpenAiError } from './http/errors.js';
import { vendorCapError } from './http/vendor-caps.js';
import { ENGINE_DEAD_MESSAGE, pickFaults, STATUS_FAULTS } from './http/faults.js';
import { Registry } from 'prom-client';
import { createSimMetrics, processMetricsText } from './http/metrics.js';
import { createSimGpuTelemetry } from './http/metrics-dcgm.js';
import { createMediaMetrics } from './http/metrics-media.js';
import { parseGenerationBody, parseTypedBody, type EndpointKind } from './http/parse.js';
import { engineMedia, hashBytes, mediaUsage } from './media-count.js';
import { audioTokens } from './engine/media.js';
import { createTranscriptionSession, parseTranscription, TRANSCRIBE_PROMPT_TOKENS, TRANSCRIPT_TOKENS_PER_SEC } from './http/transcribe.js';
import { createWire, type Protocol } from './http/wire.js';
import { createSession, type Session } from './http/session.js';
import { createTextSource } from './http/text.js';
import { createOracle, scriptedText } from './http/oracle.js';
import { nativeRoute, nativeToOpenAi, type NativeRoute } from './http/native.js';
import { createRealtimeLoop } from './loop.js';
import { WebSocketServer } from 'ws';
import { serveWebSocket } from './http/ws.js';
import { serveEmbed } from './http/embed.js';
import { parseSimServerOptions, type SimServerOptions } from './options.js';
import { listen } from './http/listen.js';
import type { SharedPrefixStore } from './engine/shared-prefix.js';
import { VERSION } from '../version.js';

export type { SimServerOptions } from './options.js';
export type { FaultOptions } from './http/faults.js';

export interface SimServerHandle {
  /** e.g. http://127.0.0.1:41234/v1 */
  baseUrl: string;
  port: number;
  host: string;
  /** What is being simulated, e.g. "llama-3.1-8b on 1x h100". */
  description: string;
  /** Model ids served: the served name and `<name>-reasoning`. */
  models: string[];
  timeScale: number;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 64 * 1024 * 1024;

/** A request in flight, with its simulated timestamps (ms) for /metrics. */
interface Live {
  session: Session;
  reason: 'length' | 'stop';
  arrivalSim: number;
  startSim: number;
  firstSim: number;
  lastSim: number;
  promptTokens: number;
  /** Oracle replies: swap in the wrong answer (the corrupt-above fault), before any of it is sent. */
  corrupt?: () => void;
}

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  return (await readBodyBytes(req))?.toString('utf8');
}

function readBodyBytes(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY_BYTES) parts.push(c);
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? undefined : Buffer.concat(parts)));
    req.on('error', reject);
  });
}

export interface SimServerHooks {
  log?: (line: string) => void;
  /** --shared-prefix-cache: the store the replicas of one `serve --replicas N` share (replicas.ts). */
  sharedPrefix?: SharedPrefixStore;
}

export async function startSimServer(opts: SimServerOptions = {}, hooks: SimServerHooks = {}): Promise<SimServerHandle> {
  const o = parseSimServerOptions(opts);
  const log = hooks.log ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const spec = resolveEngine({
    gpu: o.gpu, model: o.modelProfile, tp: o.tp, weightDtype: o.weightDtype, kvDtype: o.kvDtype,
    maxNumSeqs: o.maxNumSeqs, maxNumBatchedTokens: o.maxNumBatchedTokens, gpuMemoryUtilization: o.gpuMemoryUtilization,
    maxModelLen: o.maxModelLen, blockSize: o.blockSize, prefixCaching: o.prefixCaching, numGpuBlocksOverride: o.numGpuBlocksOverride,
    ...tuningOptions(o),
  });
  let tok;
  try {
    tok = loadTokenizer(o.tokenizer);
  } catch (e) {
    throw new UsageError([`tokenizer: ${(e as Error).message}`]);
  }
  const text = createTextSource(tok);
  const engine = createEngine(spec, { sharedPrefix: hooks.sharedPrefix });
  const oracle = createOracle({ accuracy: o.accuracy, modelProfile: spec.model.id, weightDtype: spec.weightDtype, releasedDtype: spec.model.releasedDtype, kvDtype: spec.kvDtype, seed: o.seed }, tok);
  const served = o.servedModelName ?? spec.model.id;
  const reasoningName = `${served}-reasoning`;
  const models = [served, reasoningName];
  // The loop (and its clock) is created below; metrics read simulated time through this indirection.
  const nowSimMs = (): number => loop.nowSimMs();
  const metrics = createSimMetrics(o.metricsFlavor, { modelName: served, counters: engine.counters, kvCapacityTokens: spec.kvCapacityTokens, nowSimMs, specDecode: spec.features.spec !== undefined });
  const gpu = createSimGpuTelemetry({ registry: new Registry(), spec, counters: engine.counters, nowSimMs, windowSimMs: 1000 * o.timeScale });
  const allMetrics = Registry.merge([metrics.registry, gpu.registry, createMediaMetrics(served, engine.counters)]);
  const faultRng = createRng(o.seed ^ 0x5eed);
  const faults = o.faults ?? {};
  const created = Math.floor(Date.now() / 1000);
  const live = new Map<string, Live>();
  const open = new Set<Session>();
  let requestCount = 0;
  /** A fatal oom fault fired: the engine is gone, every later generation request fails as on a dead vLLM. */
  let engineDead = false;
  const embedTimers = new Set<NodeJS.Timeout>();
  const admitTimers = new Set<NodeJS.Timeout>();

  const loop = createRealtimeLoop({
    engine,
    timeScale: o.timeScale,
    onStep(step, start, end) {
      gpu.onStep(step, start, end);
      metrics.step(step.durationMs / 1000, step.started.length > 0 || step.shape.newTokens > step.shape.requests ? 'prefill' : 'decode');
      for (const s of step.started) {
        const l = live.get(s.id);
        if (!l) continue;
        // A step that starts while the loop catches up can begin (in simulated time) before a request it admits arrived.
        l.startSim = Math.max(start, l.arrivalSim);
        l.session.setCachedTokens(s.cachedTokens);
        metrics.queued((l.startSim - l.arrivalSim) / 1000);
      }
      for (const out of step.outputs) {
        const l = live.get(out.id);
        if (!l) continue; // aborted while the step ran
        if (out.tokenIndex === 1) {
          // Batch-dependent numerics: a first token computed in a step with more than N sequences is corrupted.
          if (l.corrupt && o.corruptAbove !== undefined && step.outputs.length > o.corruptAbove) l.corrupt();
          l.firstSim = end;
          metrics.firstToken((end - l.arrivalSim) / 1000, (end - l.startSim) / 1000);
        } else metrics.interToken((end - l.lastSim) / 1000);
        l.lastSim = end;
        if (out.finished) {
          live.delete(out.id);
          metrics.finished({
            reason: l.reason, e2eS: (end - l.arrivalSim) / 1000, queueS: (l.startSim - l.arrivalSim) / 1000, prefillS: (l.firstSim - l.startSim) / 1000,
            decodeS: (end - l.firstSim) / 1000, inferenceS: (end - l.startSim) / 1000, promptTokens: l.promptTokens, outputTokens: out.tokenIndex,
          });
        }
        l.session.token(out.tokenIndex, out.finished);
      }
    },
  });

  const generate = async (kind: EndpointKind, req: IncomingMessage, res: ServerResponse, protocol: Protocol = 'openai', native?: NativeRoute): Promise<void> => {
    const raw = await readBody(req);
    if (raw === undefined) return sendError(res, 413, `request body larger than ${MAX_BODY_BYTES} bytes`);
    return generateFrom(kind, raw, res, protocol, native);
  };

  const generateFrom = async (kind: EndpointKind, raw: string, res: ServerResponse, protocol: Protocol = 'openai', native?: NativeRoute): Promise<void> => {
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch (e) {
      return sendError(res, 400, `Invalid JSON body: ${(e as Error).message}`);
    }
    const parsed = protocol === 'responses' || protocol === 'messages' ? parseTypedBody(protocol, body, tok, spec.model.id) : parseGenerationBody(kind, native ? nativeToOpenAi(native, body) : body, tok, spec.model.id);
    if (!parsed.ok) return sendError(res, 400, parsed.message);
    const g = parsed.value;
    const model = g.model ?? served;
    if (!models.includes(model)) return sendError(res, 404, `The model \`${model}\` does not exist.`);
    // A vendor API's separate caps on input and output, checked before the engine sees the request.
    const capError = vendorCapError(o, g.promptTokenIds.length, g.maxTokens, kind);
    if (capError) return sendOpenAiError(res, 400, capError);
    const n = ++requestCount;
    const active = pickFaults(faults, n, faultRng);
    if (engineDead) return sendError(res, 503, ENGINE_DEAD_MESSAGE);
    for (const f of STATUS_FAULTS) {
      if (!active[f.kind]) continue;
      if (f.kind === 'oom' && active.oom!.fatal) engineDead = true;
      const retry = f.kind === 'http429' ? { 'retry-after': String(active.http429!.retryAfterSeconds) } : undefined;
      return sendError(res, f.status, f.message, retry);
    }
    const promptTokens = g.promptTokenIds.length;
    const tooLong = contextLengthError(spec.maxModelLen, promptTokens, g.maxTokens);
    if (tooLong) return sendError(res, 400, tooLong);
    const refused = priorityRefusal(g.priority, spec.schedulingPolicy);
    if (refused) return sendError(res, 400, refused);
    const rng = createRng((o.seed * 1_000_003 + n) >>> 0);
    const maxTokens = g.maxTokens ?? spec.maxModelLen - promptTokens;
    // A shipped eval item gets a scripted reply (right or wrong by the oracle's draw), cut at max_tokens like any other.
    const scripted = g.ignoreEos ? undefined : oracle.answer(g.promptText, { reasoning: model === reasoningName && kind === 'chat', promptTokens: g.promptTokenIds.length });
    const pieces = scripted ? [...scripted.pieces] : [];
    const decision = scripted
      ? { outputTokens: Math.max(1, Math.min(maxTokens, scripted.pieces.length)), finishReason: scripted.pieces.length > maxTokens ? ('length' as const) : ('stop' as const) }
      : decideOutputTokens(rng, { maxTokens, minTokens: g.minTokens, ignoreEos: g.ignoreEos });
    const id = `${protocol === 'responses' ? 'resp' : protocol === 'messages' ? 'msg' : kind === 'chat' ? 'chatcmpl' : 'cmpl'}-${randomUUID().replace(/-/g, '')}`;
    const reasoningTokens = scripted ? Math.min(scripted.reasoningTokens, decision.outputTokens) : model === reasoningName && kind === 'chat' ? Math.floor(decision.outputTokens * o.reasoningShare) : 0;
    const identity = { id, created: Math.floor(Date.now() / 1000), model };
    let entry: Live | undefined;
    const session = createSession({
      res, kind, identity, wire: createWire(protocol, kind, identity, promptTokens, g.includeUsage),
      stream: g.stream, includeUsage: g.includeUsage, promptTokens, outputTokens: decision.outputTokens, reasoningTokens,
      finishReason: decision.finishReason, tokensPerChunk: o.tokensPerChunk, faults: active, text: scripted ? scriptedText(text, pieces) : text, rng, headers: {},
      mediaUsage: mediaUsage(g.media),
      onDrop: () => {
        if (live.delete(id) && engine.abort(id)) metrics.aborted?.();
      },
      timings: () => {
        // A step that ran while the loop caught up can end (in simulated time) before the request arrived: clamp at 0.
        const l = entry!;
        const queueMs = Math.max(0, l.startSim - l.arrivalSim);
        const promptEvalMs = Math.max(0, l.firstSim - l.startSim);
        const evalMs = Math.max(0, l.lastSim - l.firstSim);
        return { queueMs, promptEvalMs, evalMs, totalMs: queueMs + promptEvalMs + evalMs };
      },
    });
    const media = g.media.map(engineMedia);
    const add = () => engine.add({ id, promptTokens, outputTokens: decision.outputTokens, blockHashes: blockHashesFromIds(g.promptTokenIds, spec.blockSize), media, priority: g.priority });
    // API server, tokenization and streaming time outside the engine (engine/overheads.ts) before admission.
    const outside = outsideEngineMs(spec, promptTokens, o.tokensPerChunk);
    if (outside <= 0) {
      const err = add();
      if (err) return sendError(res, 400, err);
    }
    const now = loop.nowSimMs();
    const corrupt = scripted ? () => void pieces.splice(0, pieces.length, ...scripted.corrupted) : undefined;
    entry = { session, reason: decision.finishReason, arrivalSim: now, startSim: now, firstSim: now, lastSim: now, promptTokens, corrupt };
    live.set(id, entry);
    metrics.arrived(promptTokens);
    open.add(session);
    res.on('close', () => {
      open.delete(session);
      if (live.delete(id) && engine.abort(id)) metrics.aborted?.();
      session.close();
    });
    session.open();
    if (outside <= 0) return loop.wake();
    const timer = setTimeout(() => {
      admitTimers.delete(timer);
      // Gone while outside the engine (client closed): nothing to admit. The length check above already passed.
      if (!live.has(id) || add() !== undefined) return;
      loop.wake();
    }, outside / o.timeScale);
    admitTimers.add(timer);
  };

  // /v1/audio/transcriptions: the audio encoder (the served model's audio rule; whisper-large-v3: 1,500 frames per
  // 30 s into cross-attention) before a short decoder prompt, then ~3 transcript tokens per second of audio.
  const transcribe = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const raw = await readBodyBytes(req);
    if (raw === undefined) return sendError(res, 413, `request body larger than ${MAX_BODY_BYTES} bytes`);
    const p = parseTranscription(req.headers['content-type'], raw);
    if (!p.ok) return sendError(res, 400, p.message);
    const t = p.value;
    if (t.model !== undefined && !models.includes(t.model)) return sendError(res, 404, `The model \`${t.model}\` does not exist.`);
    const a = audioTokens(spec.model.id, t.seconds);
    const promptTokens = TRANSCRIBE_PROMPT_TOKENS + a.promptTokens;
    const room = spec.maxModelLen - promptTokens;
    if (room < 1) return sendError(res, 400, contextLengthError(spec.maxModelLen, promptTokens, 1) ?? 'audio too long');
    const outputTokens = Math.max(1, Math.min(room, Math.ceil(t.seconds * TRANSCRIPT_TOKENS_PER_SEC)));
    const n = ++requestCount;
    const id = `trsc-${randomUUID().replace(/-/g, '')}`;
    const usage = {
      type: 'tokens' as const, input_tokens: promptTokens + (a.promptTokens === 0 ? a.tokens : 0),
      input_token_details: { text_tokens: TRANSCRIBE_PROMPT_TOKENS, audio_tokens: a.tokens }, output_tokens: outputTokens, total_tokens: 0,
    };
    usage.total_tokens = usage.input_tokens + outputTokens;
    const session = createTranscriptionSession({ res, stream: t.stream, responseFormat: t.responseFormat, seconds: t.seconds, text, rng: createRng((o.seed * 1_000_003 + n) >>> 0), usage });
    const now = loop.nowSimMs();
    live.set(id, { session, reason: 'stop', arrivalSim: now, startSim: now, firstSim: now, lastSim: now, promptTokens });
    metrics.arrived(promptTokens);
    open.add(session);
    res.on('close', () => {
      open.delete(session);
      if (live.delete(id) && engine.abort(id)) metrics.aborted?.();
      session.close();
    });
    session.open();
    const err = engine.add({ id, promptTokens, outputTokens, media: [{ hash: hashBytes(t.audio), tokens: a.tokens, flops: a.flops }] });
    if (err) {
      live.delete(id);
      return sendError(res, 400, err);
    }
    loop.wake();
  };

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    res.setHeader('x-tokenflood-sim', '1');
    res.setHeader('x-tokenflood-time-scale', String(o.timeScale));
    const path = (req.url ?? '/').split('?')[0].replace(/\/+$/, '') || '/';
    const method = req.method ?? 'GET';
    // The client's request id comes back in the response (llhttp only accepts valid header values) and in the log.
    const requestId = req.headers[o.requestIdHeader.toLowerCase()];
    if (typeof requestId === 'string') res.setHeader(o.requestIdHeader, requestId);
    if (o.logRequests && method === 'POST') res.on('close', () => log(requestLine(method, path, res.statusCode, requestId)));
    const allow = (m: string): boolean => {
      if (method === m) return true;
      sendJsonStatus(res, 405, { detail: 'Method Not Allowed' });
      return false;
    };
    switch (path) {
      case '/v1/models':
        if (allow('GET'))
          sendJson(res, { object: 'list', data: models.map((id) => ({ id, object: 'model', created, owned_by: 'tokenflood-sim', root: served, parent: null, max_model_len: spec.maxModelLen, permission: [] })) });
        return;
      case '/v1/chat/completions':
        if (allow('POST')) await generate('chat', req, res);
        return;
      case '/v1/completions':
        if (allow('POST')) await generate('completions', req, res);
        return;
      case '/v1/responses':
        if (allow('POST')) await generate('chat', req, res, 'responses');
        return;
      case '/v1/audio/transcriptions':
        if (allow('POST')) await transcribe(req, res);
        return;
      case '/v1/messages':
        if (allow('POST')) await generate('chat', req, res, 'messages');
        return;
      case '/v1/embeddings':
      case '/v1/embed':
      case '/embed':
      case '/v1/rerank':
      case '/rerank':
        if (allow('POST')) {
          const raw = await readBody(req);
          if (raw === undefined) return sendError(res, 413, `request body larger than ${MAX_BODY_BYTES} bytes`);
          const shape = path.endsWith('/rerank') ? 'rerank' : path.endsWith('/embed') ? 'tei-embed' : 'openai-embeddings';
          serveEmbed(shape, raw, res, { tok, timeScale: o.timeScale, model: served, timers: embedTimers });
        }
        return;
      case '/metrics':
      case '/dcgm/metrics':
        if (allow('GET')) {
          const reg = path === '/metrics' ? allMetrics : gpu.registry;
          // The engine's own /metrics also carries the standard process series (its CPU and memory), as real engines' do.
          const body = path === '/metrics' ? (await reg.metrics()) + processMetricsText() : await reg.metrics();
          res.writeHead(200, { 'content-type': reg.contentType });
          res.end(body);
        }
        return;
      case '/version':
        // vLLM's shape ({"version": …}), so a run records which sim answered (run.json server_identity.version).
        if (allow('GET')) sendJson(res, { version: `tokenflood-sim ${VERSION}` });
        return;
      case '/health':
        res.writeHead(200);
        res.end();
        return;
      default: {
        const native = nativeRoute(path);
        if (!native) return sendJsonStatus(res, 404, { detail: 'Not Found' });
        if (allow('POST')) await generate(native.kind, req, res, native.protocol, native);
      }
    }
  };

  const server = createServer((req, res) => {
    route(req, res).catch((e: unknown) => sendError(res, 500, `tokenflood sim: ${(e as Error).message}`));
  });
  // WebSocket: upgrades on /v1/ws (src/sim/http/ws.ts), everything else refused.
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  server.on('upgrade', (req, socket, head) => {
    if ((req.url ?? '').split('?')[0].replace(/\/+$/, '') !== '/v1/ws') return void socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => serveWebSocket(ws, (body, res) => generateFrom('chat', body, res)));
  });
  const { port, baseUrl, sockets } = await listen(server, o.port, o.host);
  let closing: Promise<void> | undefined;
  return {
    baseUrl,
    port,
    host: o.host,
    description: `${spec.model.id} on ${spec.tp}x ${spec.gpu.id}`,
    models,
    timeScale: o.timeScale,
    close() {
      closing ??= new Promise<void>((resolve) => {
        loop.close();
        for (const t of embedTimers) clearTimeout(t);
        for (const t of admitTimers) clearTimeout(t);
        for (const s of open) s.close();
        open.clear();
        live.clear();
        server.close(() => resolve());
        server.closeAllConnections();
        for (const s of sockets) s.destroy();
      });
      return closing;
    },
  };
}

function sendJsonStatus(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** One --log-requests line; the request id is the client's text, so it is shown with control characters escaped and cut to 200 characters. */
export function requestLine(method: string, path: string, status: number, requestId: string | string[] | undefined): string {
  const id = typeof requestId === 'string' ? JSON.stringify(requestId.slice(0, 200)) : '-';
  return `${new Date().toISOString()} ${method} ${path} ${status} request_id=${id}`;
}
