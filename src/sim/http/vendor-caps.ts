// A vendor API's separate caps on input and output tokens (--max-input-tokens, --max-output-tokens), in OpenAI's words.

/**
 * The error for a request over a cap, or null. Input: prompt tokens > maxInputTokens (OpenAI's code
 * context_length_exceeded, param messages/prompt). Output: max_tokens > maxOutputTokens (OpenAI's "max_tokens is too
 * large", param max_tokens); a request without max_tokens is not refused, the API caps it.
 */
export function vendorCapError(
  caps: { maxInputTokens?: number; maxOutputTokens?: number },
  promptTokens: number,
  maxTokens: number | undefined,
  kind: string,
): { message: string; param: string; code: string | null } | null {
  if (caps.maxInputTokens !== undefined && promptTokens > caps.maxInputTokens)
    return {
      message: `This model's maximum input length is ${caps.maxInputTokens} tokens. However, your ${kind === 'chat' ? 'messages' : 'prompt'} resulted in ${promptTokens} tokens. Please reduce the length of the ${kind === 'chat' ? 'messages' : 'prompt'}.`,
      param: kind === 'chat' ? 'messages' : 'prompt',
      code: 'context_length_exceeded',
    };
  if (caps.maxOutputTokens !== undefined && maxTokens !== undefined && maxTokens > caps.maxOutputTokens)
    return {
      message: `max_tokens is too large: ${maxTokens}. This model supports at most ${caps.maxOutputTokens} completion tokens, whereas you provided ${maxTokens}.`,
      param: 'max_tokens',
      code: null,
    };
  return null;
}
