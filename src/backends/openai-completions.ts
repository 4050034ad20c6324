// The OpenAI completions protocol (POST /completions): the prompt as flat text; answers stream as `choices[].text`.
import type { Backend } from './backend.js';
import { classifyData, classifyErrorEvent, commonBody, streamClassifier } from './openai-common.js';

export const openaiCompletions: Backend = {
  kind: 'openai-completions',
  path: '/completions',
  endpoint: 'completions',
  buildBody: (spec, o) => commonBody(spec, o, { prompt: spec.prompt }),
  classifyData,
  classifyErrorEvent,
  streamClassifier,
};
