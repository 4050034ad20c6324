// Prototype for a cheaper hot path: executeRequest's streaming case on undici's dispatch() handler API.
//
// Same per-event work as dist/backends/execute.js (timestamp per chunk, SseParser, classifyData, the same
// bookkeeping) but the body never becomes a Node Readable: each chunk goes straight from undici's HTTP/1
// parser to onResponseData. Only the success path is kept: this exists to measure, not to ship.
import { SseParser } from '../dist/backends/sse.js';
import { classifyData } from '../dist/backends/openai.js';

export function leanExecute(inp) {
  const { now } = inp;
  const sentAt = now();
  const raw = { id: inp.id, status: 'ok', http_status: null, error: null, scheduled_at_ms: inp.scheduledAtMs, sent_at_ms: sentAt, headers_ms: null, end_ms: null, event_times_ms: [], event_kinds: '', answer_chars: 0 };
  const answerParts = [];
  let kinds = '';
  let t = 0;
  const parser = new SseParser((ev) => {
    if (ev.type === 'comment') {
      raw.event_times_ms.push(t);
      kinds += 'c';
      return;
    }
    const info = classifyData(ev.data);
    raw.event_times_ms.push(t);
    kinds += info.kind;
    if (info.answer) {
      answerParts.push(info.answer);
      raw.answer_chars += info.answer.length;
    }
  });
  const u = new URL(inp.url);
  return new Promise((resolve) => {
    const done = (err) => {
      raw.end_ms = now() - sentAt;
      raw.event_kinds = kinds;
      if (err) {
        raw.status = 'network_error';
        raw.error = String(err?.message ?? err);
      }
      resolve({ raw, answerText: answerParts.join('') });
    };
    inp.dispatcher.dispatch(
      { origin: u.origin, path: u.pathname, method: 'POST', headers: inp.headers, body: inp.body, headersTimeout: 0, bodyTimeout: 0 },
      {
        onRequestStart() {},
        onResponseStart(_c, statusCode) {
          raw.headers_ms = now() - sentAt;
          raw.http_status = statusCode;
        },
        onResponseData(_c, chunk) {
          t = now() - sentAt;
          parser.push(chunk);
        },
        onResponseEnd() {
          t = now() - sentAt;
          parser.end();
          done(null);
        },
        onResponseError(_c, err) {
          done(err);
        },
      },
    );
  });
}
