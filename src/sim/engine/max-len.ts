// What the configured max_model_len costs per step: the block table rows the scheduler uploads before each forward.

/** Pinned host-to-GPU copy bandwidth of the block-table upload, GB/s (PCIe Gen4 x16 in practice; --pcie-gbps is the offload link's). */
export const BLOCK_TABLE_H2D_GBPS = 25;

/** Bytes of one request's block-table row: ceil(max_model_len / block_size) int32 block ids (vLLM's max_num_blocks_per_req). */
export function blockTableRowBytes(maxModelLen: number, blockSize: number): number {
  return Math.ceil(maxModelLen / blockSize) * 4;
}

/**
 * Host-to-GPU upload of the block table before a step (vLLM v1 BlockTable.commit copies the first `requests` rows whole,
 * each as wide as max_model_len allows): requests · rowBytes / PCIe bandwidth, ms. 0 when the engine keeps its table on
 * the GPU (SGLang's req_to_token pool: --block-table-upload false).
 */
export function blockTableUploadMs(spec: { blockTableBytesPerRequest: number; hostToDeviceBytesPerSec: number }, requests: number): number {
  return spec.blockTableBytesPerRequest > 0 ? ((requests * spec.blockTableBytesPerRequest) / spec.hostToDeviceBytesPerSec) * 1000 : 0;
}
