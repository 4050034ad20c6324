// Start a sim HTTP server listening, tracking its sockets so close() can end kept-alive connections at once.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export interface Listening {
  port: number;
  /** The base URL of its OpenAI-compatible API (an IPv6 host in brackets). */
  baseUrl: string;
  /** Open connections, destroyed by close(). */
  sockets: Set<Socket>;
}

export async function listen(server: Server, port: number, host: string): Promise<Listening> {
  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const addr = server.address();
  const bound = typeof addr === 'object' && addr ? addr.port : port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return { port: bound, baseUrl: `http://${urlHost}:${bound}/v1`, sockets };
}
