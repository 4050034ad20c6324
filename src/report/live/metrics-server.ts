// The --metrics-port HTTP server: GET /metrics answers with the run's registry in Prometheus text format.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { UsageError } from '../../errors.js';

export interface MetricsServer {
  /** http://HOST:PORT/metrics with the port actually bound (0 asks for a free one). */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Listen on host:port; a port in use or a host that cannot be bound is a UsageError naming the flag (nothing was sent yet). */
export async function startMetricsServer(registry: Registry, port: number, host: string): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: try /metrics\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('method not allowed\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' }).end(req.method === 'HEAD' ? undefined : text),
      (e: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${(e as Error).message}\n`),
    );
  });
  // A scraper holding a keep-alive connection must not keep the process alive after close().
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => {
      const why = e.code === 'EADDRINUSE' ? `port ${port} is in use` : e.code === 'EACCES' ? `not allowed to listen on port ${port}` : e.code === 'EADDRNOTAVAIL' || e.code === 'ENOTFOUND' ? `cannot bind ${host}: no such local address` : e.message;
      reject(new UsageError([`${e.code === 'EADDRNOTAVAIL' || e.code === 'ENOTFOUND' ? '--metrics-host' : '--metrics-port'}: ${why}`]));
    });
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${bound}/metrics`,
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
