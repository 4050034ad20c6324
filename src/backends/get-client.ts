// What a GET client is (src/backends/http-get.ts makes one): the plain GETs of a run that are not its load (preflight, /metrics, identity).
import type { ProxyChoice } from './proxy.js';

export interface GetResponse {
  status: number;
  /** Names lowercased. */
  headers: Record<string, string | string[] | undefined>;
  /** The body as UTF-8, at most `maxBytes` bytes of it (the connection is dropped past that). */
  text: string;
}

export interface GetOptions {
  headers: Record<string, string>;
  /** The whole exchange (connect, headers, body) must finish within this; it rejects otherwise. */
  deadlineMs: number;
  maxBytes: number;
  signal?: AbortSignal;
}

export interface GetClient {
  get(url: string, o: GetOptions): Promise<GetResponse>;
  /** Drops every connection at once (a dribbling body is never waited for). */
  close(): Promise<void>;
}

export interface GetClientOptions {
  /** h1: tokenflood's pool (http and https, no proxy); undici: for a proxy, or when the run uses undici. */
  transport: 'h1' | 'undici';
  proxy: ProxyChoice | null;
  /** Connections per origin. */
  connections: number;
  keepAliveMs?: number;
}
