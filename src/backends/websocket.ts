// The websocket backend (--backend websocket): a generic JSON-over-WebSocket protocol set by --backend-config.
import type { Backend } from './backend.js';
import { wsClassifier } from './ws/classify.js';
import { loadWebSocketConfig } from './ws/config.js';
import { eosExtensions, sampling } from './native-common.js';

const defaults = loadWebSocketConfig(undefined);
if ('problems' in defaults) throw new Error(`the built-in websocket config is invalid: ${defaults.problems.join('; ')}`);
const classify = wsClassifier(defaults.config);

/**
 * The body is not sent as it is: it holds the facts the request template's {{placeholders}} are filled from
 * (src/backends/ws/template.ts). Messages are read by the configured mapping in src/backends/ws/sender.ts; the
 * classifiers here are the embedded server's protocol, for code that asks the registry.
 */
export const websocket: Backend = {
  kind: 'websocket',
  path: '/ws',
  endpoint: 'chat',
  buildBody: (spec, o) => {
    return { model: o.model, messages: spec.messages, prompt: spec.prompt, max_tokens: spec.maxTokens, ...eosExtensions(spec, o), ...sampling(o) };
  },
  classifyData: (data) => classify(data),
  classifyErrorEvent: (data) => ({ ...classify(data), kind: 'e', error: data.slice(0, 200) }),
};

/** The ws:// URL of a run: the config's, else --base-url with its scheme swapped (http → ws, https → wss) and /ws appended. */
export function webSocketUrl(configUrl: string | undefined, baseUrl: string, join: (base: string, path: string) => string): string {
  if (configUrl) return configUrl;
  return join(baseUrl, websocket.path).replace(/^http/, 'ws');
}
