// The OpenAI chat protocol (POST /chat/completions): the prompt as messages; answers as `delta.content`, reasoning beside it.
import type { Backend } from './backend.js';
import { classifyData, classifyErrorEvent, commonBody } from './openai-common.js';

export const openaiChat: Backend = {
  kind: 'openai-chat',
  path: '/chat/completions',
  endpoint: 'chat',
  buildBody: (spec, o) => commonBody(spec, o, { messages: spec.messages }),
  classifyData,
  classifyErrorEvent,
};
