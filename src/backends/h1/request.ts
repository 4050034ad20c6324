// The bytes of one HTTP/1.1 request: request line, Host, the caller's headers, Content-Length, body.
import { H1Error } from './errors.js';

export interface H1Request {
  method: string;
  /** Path and query, starting with "/". */
  path: string;
  headers: Record<string, string>;
  /** Sent as UTF-8 with a Content-Length; omit for no body. */
  body?: string | Uint8Array;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Field values may not carry CR, LF or NUL: they would let a value start a new header (request splitting). */
const BAD_VALUE = /[\r\n\0]/;
const BAD_PATH = /[\s\0]/;
/** Headers the client writes itself; a caller's copy is dropped so the framing cannot disagree with the body. */
const OWN = new Set(['host', 'content-length', 'transfer-encoding', 'connection']);

/** Methods that carry a Content-Length even with no body, as clients conventionally send them. */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** The request as one string (head in ASCII, body in UTF-8); throws E_INVALID_REQUEST for unsafe input. */
export function serializeRequest(req: H1Request, host: string): string | Buffer {
  const { method, path, headers, body } = req;
  if (!TOKEN.test(method)) throw invalid(`bad method "${method}"`);
  if (path[0] !== '/' || BAD_PATH.test(path)) throw invalid(`bad path "${path.slice(0, 80)}": must start with / and contain no whitespace`);
  let head = `${method} ${path} HTTP/1.1\r\n`;
  let hostHeader = host;
  for (const name in headers) {
    const value = headers[name];
    if (!TOKEN.test(name)) throw invalid(`bad header name "${name}"`);
    if (BAD_VALUE.test(value)) throw invalid(`header "${name}" contains CR, LF or NUL`);
    const lower = name.toLowerCase();
    if (OWN.has(lower)) {
      if (lower === 'host') hostHeader = value;
      continue;
    }
    head += `${name}: ${value}\r\n`;
  }
  head = `${head}host: ${hostHeader}\r\n`;
  // A binary body (multipart uploads) goes out as its bytes after the ASCII head.
  if (body instanceof Uint8Array) return Buffer.concat([Buffer.from(`${head}content-length: ${body.length}\r\n\r\n`, 'latin1'), body]);
  if (body !== undefined) return `${head}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  if (BODY_METHODS.has(method)) return `${head}content-length: 0\r\n\r\n`;
  return `${head}\r\n`;
}

function invalid(what: string): H1Error {
  return new H1Error('E_INVALID_REQUEST', 'connect', `request not sent: ${what}`);
}
