// vLLM-shaped JSON error bodies: {"object":"error","message":...,"type":...,"param":null,"code":N}.
import type { ServerResponse } from 'node:http';

const TYPES: Record<number, string> = {
  400: 'BadRequestError',
  404: 'NotFoundError',
  405: 'MethodNotAllowedError',
  413: 'BadRequestError',
  429: 'TooManyRequestsError',
  500: 'InternalServerError',
  503: 'ServiceUnavailableError',
};

export function errorBody(code: number, message: string): string {
  return JSON.stringify({ object: 'error', message, type: TYPES[code] ?? 'Error', param: null, code });
}

export function sendError(res: ServerResponse, code: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = errorBody(code, message);
  res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

export function sendJson(res: ServerResponse, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** An error in OpenAI's own shape ({"error": {message, type, param, code}}), as vendor APIs send their validation errors. */
export function sendOpenAiError(res: ServerResponse, status: number, e: { message: string; param: string | null; code: string | null }): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify({ error: { message: e.message, type: 'invalid_request_error', param: e.param, code: e.code } });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
