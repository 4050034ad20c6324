// Public library API.
export { run, RunWriteError, type RunResult, type RunOptions, type RunHooks } from './run.js';
export type { Reporter, RunStartEvent, SnapshotEvent, RunEndEvent, ResultFiles, SweepStartEvent, PointStartEvent, PointEndEvent, SweepEndEvent } from './report/events.js';
export { simulate, type SimulateResult } from './simulate.js';
export { resolveRunConfig } from './config/load.js';
export { RunConfigSchema, type RunConfig, type RunConfigInput } from './config/schema.js';
export { buildSummary, computeMetrics, type Summary } from './metrics/summary.js';
export { readRecords } from './metrics/jsonl.js';
export { deriveMetrics, toRecord } from './metrics/derive.js';
export type { RequestRecord, RawRequest, RequestStatus } from './metrics/record.js';
export { ERROR_CODES, codeStatus } from './metrics/error-codes.js';
export { SseParser } from './backends/sse.js';
export { loadTokenizer, type Tokenizer } from './dataset/tokenizer.js';
export { UsageError, TokenfloodError, WriteError } from './errors.js';
export { startSimServer } from './sim/server.js';
export { startDashboard, type Dashboard, type DashboardOptions } from './ui/dashboard.js';
export type { LoadControl, LoadStage, LoadChange } from './scheduler/load-control.js';
export type { TimelineSample } from './telemetry/source.js';
