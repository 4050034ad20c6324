// Errors of the HTTP/1.1 client: a stable code an operator can act on, and the phase of the exchange it hit.

/**
 * Stable codes. Socket-level failures keep the name the OS gives them (ECONNREFUSED, ECONNRESET, ETIMEDOUT,
 * ENOTFOUND, …) because that is what operators search for; the rest are ours.
 */
export type H1ErrorCode =
  | 'ECONNREFUSED' // nothing listening at host:port
  | 'ECONNRESET' // the server reset or closed the connection before the response was complete
  | 'ETIMEDOUT' // the OS gave up connecting or sending
  | 'ENOTFOUND' // the host name does not resolve
  | 'EHOSTUNREACH' // no route to the host
  | 'EPIPE' // the server stopped reading the request
  | 'E_SOCKET' // any other socket error (the OS code is in the message)
  | 'E_TLS' // the TLS handshake or certificate check failed
  | 'E_STALE_SOCKET' // a reused keep-alive connection closed before any byte of the response (after the retry, too)
  | 'E_MALFORMED_RESPONSE' // the bytes received are not a valid HTTP/1.x response
  | 'E_INVALID_REQUEST' // a header name or value the client refuses to send (CR/LF, bad characters)
  | 'E_UNSUPPORTED' // a response this client does not handle (101 Switching Protocols)
  | 'E_ABORTED' // the caller aborted the request
  | 'E_POOL_CLOSED' // the pool was closed before the request could be sent
  | 'E_HANDLER'; // a handler callback threw; the connection was destroyed

/** Where in the exchange the error happened: it tells whether the server may have seen (or answered) the request. */
export type H1Phase = 'connect' | 'headers' | 'body';

export class H1Error extends Error {
  constructor(
    readonly code: H1ErrorCode,
    readonly phase: H1Phase,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'H1Error';
  }
}

const OS_CODES = new Set<string>(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'EPIPE']);

const PHASE_WORDS: Record<H1Phase, string> = {
  connect: 'while connecting',
  headers: 'before response headers',
  body: 'mid-body',
};

/** An error from a socket, given the code it will carry and a sentence saying what happened where. */
export function socketError(err: Error & { code?: string }, phase: H1Phase, where: string): H1Error {
  const os = err.code ?? '';
  if (err instanceof H1Error) return err;
  let code: H1ErrorCode;
  if (OS_CODES.has(os)) code = os as H1ErrorCode;
  else if (os.startsWith('ERR_TLS') || os.startsWith('ERR_SSL') || /certificate|SSL|TLS/i.test(err.message)) code = 'E_TLS';
  else code = 'E_SOCKET';
  const what =
    code === 'ECONNREFUSED'
      ? `connection refused by ${where} (is the server running?)`
      : code === 'ECONNRESET'
        ? `connection reset by ${where} ${PHASE_WORDS[phase]}`
        : `${os || err.name}: ${err.message} (${where}, ${PHASE_WORDS[phase]})`;
  return new H1Error(code, phase, what, { cause: err });
}

/** The server closed the connection (FIN) before the response was complete. */
export function closedEarly(phase: H1Phase, where: string, bodyBytes: number): H1Error {
  const detail = phase === 'body' ? ` after ${bodyBytes} body bytes` : '';
  return new H1Error('ECONNRESET', phase, `connection closed by ${where} ${PHASE_WORDS[phase]}${detail}`);
}
