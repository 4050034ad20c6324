// The sim's OpenAI Responses stream: response.created, output items with text or reasoning deltas, response.completed with usage.
import type { ResponseIdentity, Usage } from './chunks.js';
import { typedEvent, type Field, type Wire } from './wire-types.js';

/** A chat-shaped usage as the Responses API reports it. */
export function responsesUsage(u: Usage): unknown {
  return {
    input_tokens: u.prompt_tokens,
    input_tokens_details: { cached_tokens: u.prompt_tokens_details.cached_tokens },
    output_tokens: u.completion_tokens,
    output_tokens_details: { reasoning_tokens: u.completion_tokens_details.reasoning_tokens },
    total_tokens: u.total_tokens,
  };
}

export function responsesWire(r: ResponseIdentity): Wire {
  let seq = 0;
  let open: Field | null = null;
  let index = -1;
  const ev = (type: string, rest: Record<string, unknown>): string => typedEvent({ type, sequence_number: seq++, ...rest });
  const response = (status: string, extra: Record<string, unknown> = {}) => ({ id: r.id, object: 'response', created_at: r.created, model: r.model, status, output: [], usage: null, ...extra });
  const itemId = () => `${open === 'content' ? 'msg' : 'rs'}_${r.id}_${index}`;
  const item = (status: string) => (open === 'content' ? { type: 'message', id: itemId(), status, role: 'assistant', content: [] } : { type: 'reasoning', id: itemId(), summary: [] });
  const close = (): string => {
    if (open === null) return '';
    const at = { item_id: itemId(), output_index: index };
    const text = open === 'content' ? ev('response.output_text.done', { ...at, content_index: 0 }) + ev('response.content_part.done', { ...at, content_index: 0 }) : '';
    const out = text + ev('response.output_item.done', { output_index: index, item: item('completed') });
    open = null;
    return out;
  };
  const begin = (field: Field): string => {
    const prev = close();
    open = field;
    index++;
    const added = ev('response.output_item.added', { output_index: index, item: item('in_progress') });
    const part = field === 'content' ? ev('response.content_part.added', { item_id: itemId(), output_index: index, content_index: 0, part: { type: 'output_text', text: '' } }) : '';
    return prev + added + part;
  };
  return {
    contentType: 'text/event-stream',
    start: () => ev('response.created', { response: response('in_progress') }) + ev('response.in_progress', { response: response('in_progress') }),
    delta(text, field) {
      const head = open === field ? '' : begin(field);
      if (!text) return head;
      const type = field === 'content' ? 'response.output_text.delta' : 'response.reasoning_text.delta';
      return head + ev(type, { item_id: itemId(), output_index: index, content_index: 0, delta: text });
    },
    end(e, includeUsage) {
      const finish = e.finish;
      const u = includeUsage ? e.usage : null;
      const done = finish === 'length' ? { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } } : { status: 'completed', incomplete_details: null };
      return close() + ev(finish === 'length' ? 'response.incomplete' : 'response.completed', { response: response(done.status, { ...done, usage: u ? responsesUsage(u) : null }) });
    },
    whole(reasoning, content, e) {
      const { finish, usage: u } = e;
      const output: unknown[] = [];
      if (reasoning) output.push({ type: 'reasoning', id: `rs_${r.id}`, summary: [], content: [{ type: 'reasoning_text', text: reasoning }] });
      output.push({ type: 'message', id: `msg_${r.id}`, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: content, annotations: [] }] });
      const done = finish === 'length' ? { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } } : { status: 'completed', incomplete_details: null };
      return { ...response(done.status), ...done, output, usage: responsesUsage(u) };
    },
    heartbeat: ': ping\n\n',
  };
}
