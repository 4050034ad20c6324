// Stable codes for undici's errors that mean the same as an H1Error code, so both transports record alike.

/**
 * Largest response head (status line and header lines) either transport accepts: h1/parser.ts counts it, undici
 * gets it as maxHeaderSize (its default, Node's 16 KiB, failed heads h1 took). Past it: E_MALFORMED_RESPONSE.
 */
export const MAX_RESPONSE_HEAD_BYTES = 64 * 1024;

/** undici's ways of saying the bytes received are not a valid HTTP/1.1 response (llhttp, or its own checks). */
export function isMalformedResponse(err: unknown, beforeHeaders: boolean): boolean {
  const e = err as { code?: string; name?: string; message?: string };
  if (e?.name === 'HTTPParserError' || e?.code?.startsWith('HPE_')) return true;
  // A head over maxHeaderSize (MAX_RESPONSE_HEAD_BYTES): h1 says "response head larger than N bytes".
  if (e?.code === 'UND_ERR_HEADERS_OVERFLOW') return true;
  // undici's answer to an unsolicited 100 Continue.
  if (e?.code === 'UND_ERR_SOCKET' && e.message === 'bad response') return true;
  // A Content-Length sent twice reaches undici as one concatenated value ("2626"): a head fault, not a short body.
  return beforeHeaders && e?.code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH';
}

/** The record code of an undici error (in metrics/error-codes.ts, which maps legacy records with it too). */
export { undiciCode } from '../metrics/error-codes.js';
