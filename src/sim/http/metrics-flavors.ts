// The sim server's metric flavors by name (kept apart from their builders so option parsing imports no prom-client).
export const METRICS_FLAVOR_NAMES = ['vllm', 'sglang', 'tgi'] as const;
export type MetricsFlavor = (typeof METRICS_FLAVOR_NAMES)[number];
