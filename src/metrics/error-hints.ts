// The error playbook: what to check or change for each failure code, shown beside the counts (summary, terminal, report).
import type { RequestStatus } from './record.js';

/**
 * Hints by exact code. They follow the load-testing practice: a timeout is the server's queue or a client limit,
 * a 429 a rate limit, EMFILE the client's `ulimit -n`, a context error the lengths against max_model_len.
 */
const BY_CODE: Record<string, string> = {
  E_TIMEOUT: 'requests outlived --timeout: the server queues more than it serves (see its waiting requests) or outputs are longer than the timeout allows; lower the load, or raise --timeout for long outputs',
  E_HEADERS_TIMEOUT: 'no response headers within --idle-timeout: the request sat in the server\'s (or a proxy\'s) queue; lower the load or raise --idle-timeout',
  E_STREAM_STALLED: 'the stream paused longer than --idle-timeout: the engine preempted the request (KV cache full) or stalled; look at the server\'s preemptions, lower the load',
  E_CONTEXT_TOO_LONG: 'prompt + max_tokens exceed the model\'s max_model_len (or the API\'s input cap): shorten --input-tokens / --output-tokens, or start the server with a larger --max-model-len',
  E_MAX_TOKENS_TOO_LARGE: 'max_tokens is above the API\'s output cap: lower --output-tokens to the cap',
  E_PRIORITY_NOT_ENABLED: 'the requests carry a priority (a dataset\'s or trace\'s `priority`, --priority-mix) and the server schedules first come, first served: start vLLM with --scheduling-policy priority (SGLang --enable-priority-scheduling; the embedded sim --sim-scheduling-policy priority), or give --no-priority-send to label requests without sending it',
  E_SERVER_OOM: 'the server ran out of GPU memory: lower its --gpu-memory-utilization, --max-num-seqs or --max-model-len, or the load; if the engine died, restart it',
  E_ENGINE_DEAD: 'the engine behind the API server has died: every later request fails until it is restarted; find the first error in the server log (often CUDA out of memory)',
  E_HTTP_429: 'rate limited: the API\'s requests- or tokens-per-minute quota; lower --rate / --concurrency, use --retry to honour Retry-After, or ask for a higher quota',
  E_HTTP_503: 'service unavailable: the server (or its gateway) is overloaded, starting or shedding load; lower the load, check its health and queue',
  E_HTTP_502: 'bad gateway: the proxy in front of the server lost it (crash, restart, or an upstream timeout)',
  E_HTTP_504: 'gateway timeout: a proxy gave up before the server answered; its timeout is shorter than the requests',
  E_HTTP_500: 'internal server error: read the example and the server log',
  E_HTTP_400: 'bad request: the server refused the request body; read the example (model name, parameters the server does not accept)',
  E_HTTP_401: 'unauthorized: give --api-key (or --header Authorization: ...)',
  E_HTTP_403: 'forbidden: the key has no access to this model or endpoint',
  E_HTTP_404: 'not found: check --base-url (its /v1 part), --endpoint and --model',
  E_HTTP_413: 'payload too large: a proxy\'s or server\'s body limit is below the prompts sent',
  E_STREAM_ERROR_EVENT: 'the server reported an error inside a 200 stream: read the example and the server log',
  E_EMPTY: 'HTTP 200 without a token: the model stopped at once or max_tokens was 0; check the prompt and the chat template',
  E_STALE_SOCKET: 'the server closes idle keep-alive connections: its keep-alive timeout is shorter than the gaps between requests',
  E_WORKER: 'a client worker thread failed: rerun with --workers 1 and report the message',
  E_POOL_CLOSED: 'the client closed its connections before sending: the run was stopping',
  EMFILE: 'the client ran out of file descriptors (one socket per request in flight): raise `ulimit -n` (e.g. ulimit -n 65536) before the run, or lower --concurrency',
  ENFILE: 'the host ran out of file descriptors (fs.file-max): raise it, or lower --concurrency',
  EADDRNOTAVAIL: 'the client ran out of local ports: too many short connections; keep connections alive, widen net.ipv4.ip_local_port_range',
  ECONNREFUSED: 'nothing listens at --base-url: the server is down, restarting or on another port',
  ECONNRESET: 'the server or a proxy closed the connection mid-request: a crash, a restart, or a proxy\'s idle or body limit',
  EPIPE: 'the server closed the connection while the request was being sent: a crash, a restart, or a body limit',
  ETIMEDOUT: 'the connection timed out: the server\'s accept queue (listen backlog) is full, or the network drops packets',
  ENOTFOUND: 'the host name of --base-url does not resolve',
  UND_ERR_CONNECT_TIMEOUT: 'connecting timed out: the server\'s accept queue (listen backlog) is full or the host is unreachable',
};

/** Hints by kind, for codes without their own (another HTTP status, a parse error, another socket error). */
const BY_KIND: Partial<Record<RequestStatus, string>> = {
  http_error: 'the server answered with an error status: read the example and the server log',
  timeout: 'the request took too long: the server\'s queue or a client limit (--timeout, --idle-timeout)',
  network_error: 'the connection failed: the server crashed or restarted, a proxy cut it, or the client hit a limit (ulimit -n, local ports)',
  parse_error: 'the response is not in the protocol the client expects: check --backend and --endpoint against the server',
  empty: BY_CODE.E_EMPTY,
};

/** The playbook's hint for a failure code (and its kind, for codes without their own); null for cancelled requests. */
export function errorHint(code: string, kind: RequestStatus): string | null {
  if (kind === 'cancelled' || kind === 'ok') return null;
  const own = BY_CODE[code];
  if (own) return own;
  const status = /^E_HTTP_(\d)\d\d$/.exec(code)?.[1];
  if (status === '5') return 'server error: the server failed the request; read the example and the server log';
  if (status === '4') return 'client error: the server refused the request; read the example';
  return BY_KIND[kind] ?? null;
}

/** The codes with a hint of their own, for the docs' playbook table and its test. */
export const HINTED_CODES: readonly string[] = Object.keys(BY_CODE);
