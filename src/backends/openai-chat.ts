// The OpenAI chat protocol (POST /chat/completions): the prompt as messages; answers as `delta.content`, reasoning beside it.
import type { Backend } from './backend.js';
import { classifyData, classifyErrorEvent, commonBody, streamClassifier } from './openai-common.js';
import { onLastUser, openaiChatParts } from './media-content.js';

export const openaiChat: Backend = {
  kind: 'openai-chat',
  path: '/chat/completions',
  endpoint: 'chat',
  media: ['image', 'audio'],
  buildBody: (spec, o) => commonBody(spec, o, { messages: spec.media?.length ? onLastUser(spec.messages, (t) => openaiChatParts(t, spec.media ?? [])) : spec.messages }),
  classifyData,
  classifyErrorEvent,
  streamClassifier,
};
