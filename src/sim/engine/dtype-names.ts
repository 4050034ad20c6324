// The names of the weight and KV-cache precisions (dtypes.ts has their sizes and peaks): importable by profiles without a cycle.
export const WEIGHT_DTYPES = ['bf16', 'fp16', 'fp8', 'int8', 'int4', 'mxfp4', 'nvfp4', 'fp32'] as const;
export const KV_DTYPES = ['bf16', 'fp16', 'fp8', 'int8', 'int4', 'fp32'] as const;
export type WeightDtype = (typeof WEIGHT_DTYPES)[number];
export type KvDtype = (typeof KV_DTYPES)[number];
/** How an FP8 checkpoint scales its weights: one scale per 128×128 block, or per tensor / per output channel. */
export const FP8_SCALINGS = ['block', 'tensor'] as const;
export type Fp8Scaling = (typeof FP8_SCALINGS)[number];
