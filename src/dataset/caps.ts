// A vendor API's separate input and output caps (--max-input-tokens, --max-output-tokens) checked before sending:
// one rule for datasets, tokenflood replay files and traces, each naming the request its own way.

export interface TokenCaps {
  maxInputTokens?: number;
  maxOutputTokens?: number;
}

/**
 * Why a request is over a cap, or undefined when within both: `where: <input> is over --max-input-tokens N`, with
 * the input named as the data names it (`prompt of 812 tokens`, `input_length 812`), or `where: max_tokens M is over
 * --max-output-tokens N` for the largest max_tokens the request (every turn of a conversation) asks for.
 */
export function capProblem(caps: TokenCaps, where: string, inputTokens: number, maxTokens: number | readonly number[], inputName = (n: number) => `prompt of ${n} tokens`): string | undefined {
  if (caps.maxInputTokens !== undefined && inputTokens > caps.maxInputTokens) return `${where}: ${inputName(inputTokens)} is over --max-input-tokens ${caps.maxInputTokens}`;
  const out = typeof maxTokens === 'number' ? maxTokens : Math.max(...maxTokens);
  if (caps.maxOutputTokens !== undefined && out > caps.maxOutputTokens) return `${where}: max_tokens ${out} is over --max-output-tokens ${caps.maxOutputTokens}`;
  return undefined;
}
