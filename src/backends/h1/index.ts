// HTTP/1.1 client for the load generator's hot path: pool, handler interface, errors.
export { H1Pool, type H1PoolOptions, type H1Abort } from './pool.js';
export type { H1Handlers, H1SendTiming } from './connection.js';
export type { H1Request } from './request.js';
export { H1Error, type H1ErrorCode, type H1Phase } from './errors.js';
