// The sim server's WebSocket endpoint (/v1/ws): one generation at a time per connection, streamed as JSON messages.
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { WebSocket } from 'ws';

/**
 * A ServerResponse stand-in that turns what a generation session writes (SSE events, an error body) into WebSocket
 * messages, so the WebSocket endpoint shares the HTTP endpoints' engine, faults and chunking: `data: {...}` → the
 * chunk as one message, `: ping` → {"type":"ping"}, the end → {"type":"done"}, an error body → {"error":{...}},
 * destroy() (the drop fault) → the connection closed without a close frame.
 */
class WsResponse extends EventEmitter {
  headersSent = false;
  writableEnded = false;
  private status = 200;
  private finished = false;

  constructor(
    private readonly ws: WebSocket,
    private readonly onFinish: () => void,
  ) {
    super();
  }

  setHeader(): this {
    return this;
  }
  writeHead(status: number): this {
    this.status = status;
    this.headersSent = true;
    return this;
  }
  flushHeaders(): void {}

  write(chunk: string): boolean {
    for (const block of chunk.split('\n\n')) {
      if (block.startsWith(':')) this.ws.send('{"type":"ping"}');
      else if (block.startsWith('data: ') && block !== 'data: [DONE]') this.ws.send(block.slice(6));
    }
    return true;
  }

  end(body?: string): this {
    if (this.writableEnded) return this;
    this.writableEnded = true;
    if (this.status >= 400) {
      let error: unknown = body;
      try {
        error = JSON.parse(body ?? '');
      } catch {
        /* plain text */
      }
      this.ws.send(JSON.stringify({ error }));
    } else {
      if (body) this.ws.send(body);
      this.ws.send('{"type":"done"}');
    }
    this.finish();
    return this;
  }

  destroy(): this {
    this.writableEnded = true;
    this.ws.terminate();
    this.finish();
    return this;
  }

  /** The generation is over (or its connection gone): the session's 'close' listeners run once. */
  finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.emit('close');
    this.onFinish();
  }
}

/** Serve one WebSocket connection: each text message is a generation body; a message during a generation is refused. */
export function serveWebSocket(ws: WebSocket, generate: (body: string, res: ServerResponse) => Promise<void>): void {
  let current: WsResponse | null = null;
  ws.on('message', (data) => {
    if (current) return void ws.send(JSON.stringify({ error: { message: 'one generation at a time per connection: wait for {"type":"done"}' } }));
    const res = new WsResponse(ws, () => {
      if (current === res) current = null;
    });
    current = res;
    // The session only uses what WsResponse implements (write, end, destroy, writeHead, 'close').
    generate(data.toString(), res as unknown as ServerResponse).catch((e: unknown) => {
      res.writeHead(500).end(JSON.stringify({ message: `tokenflood sim: ${(e as Error).message}` }));
    });
  });
  ws.on('close', () => current?.finish());
  ws.on('error', () => {});
}
