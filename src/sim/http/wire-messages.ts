// The sim's Anthropic Messages stream: message_start, content blocks of thinking or text deltas, message_delta with usage, message_stop.
import type { ResponseIdentity, Usage } from './chunks.js';
import { typedEvent, type Field, type Wire } from './wire-types.js';

/** input_tokens leaves out the tokens read from the prefix cache, which Anthropic reports as cache_read_input_tokens. */
const inputUsage = (prompt: number, cached: number) => ({ input_tokens: prompt - cached, cache_creation_input_tokens: 0, cache_read_input_tokens: cached, output_tokens: 1 });

const stopReason = (finish: 'length' | 'stop'): string => (finish === 'length' ? 'max_tokens' : 'end_turn');

/** Without usage (a gateway that strips it, `stream_options.include_usage: false`), message_start and message_delta carry none. */
export function messagesWire(r: ResponseIdentity, promptTokens: number, withUsage: boolean): Wire {
  let open: Field | null = null;
  let index = -1;
  const close = (): string => {
    if (open === null) return '';
    open = null;
    return typedEvent({ type: 'content_block_stop', index });
  };
  const message = (usage: unknown) => ({ id: `msg_${r.id}`, type: 'message', role: 'assistant', content: [], model: r.model, stop_reason: null, stop_sequence: null, ...(usage ? { usage } : {}) });
  return {
    contentType: 'text/event-stream',
    start: (cached) => typedEvent({ type: 'message_start', message: message(withUsage ? inputUsage(promptTokens, cached) : null) }),
    delta(text, field) {
      let head = '';
      if (open !== field) {
        head = close();
        open = field;
        index++;
        const block = field === 'content' ? { type: 'text', text: '' } : { type: 'thinking', thinking: '' };
        head += typedEvent({ type: 'content_block_start', index, content_block: block });
      }
      if (!text) return head;
      const delta = field === 'content' ? { type: 'text_delta', text } : { type: 'thinking_delta', thinking: text };
      return head + typedEvent({ type: 'content_block_delta', index, delta });
    },
    end(e, includeUsage) {
      const finish = e.finish;
      const usage = includeUsage ? { usage: { output_tokens: e.usage.completion_tokens } } : {};
      return close() + typedEvent({ type: 'message_delta', delta: { stop_reason: stopReason(finish), stop_sequence: null }, ...usage }) + typedEvent({ type: 'message_stop' });
    },
    whole(reasoning, content, e) {
      const { finish, usage: u } = e;
      const blocks: unknown[] = [];
      if (reasoning) blocks.push({ type: 'thinking', thinking: reasoning, signature: '' });
      blocks.push({ type: 'text', text: content });
      return { ...message({ ...inputUsage(u.prompt_tokens, u.prompt_tokens_details.cached_tokens), output_tokens: u.completion_tokens }), content: blocks, stop_reason: stopReason(finish) };
    },
    heartbeat: 'event: ping\ndata: {"type": "ping"}\n\n',
  };
}
