// --tools N: synthetic function definitions sent with every chat request, as an agent's tool-calling requests carry.
/** Most tool definitions per request: agents send tens; past this the definitions are the prompt. */
export const MAX_TOOLS = 128;

const VERBS = ['search', 'read', 'write', 'list', 'run', 'fetch', 'update', 'delete'];
const NOUNS = ['files', 'issues', 'tickets', 'orders', 'documents', 'records', 'users', 'logs'];

/**
 * `n` OpenAI-style function tools, deterministic (the same n, the same bytes: a server's prefix cache sees one
 * shared prefix), each with a description and a two-parameter JSON schema, about 60-70 tokens per tool.
 */
export function syntheticTools(n: number): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) => {
    const name = `${VERBS[i % VERBS.length]}_${NOUNS[Math.floor(i / VERBS.length) % NOUNS.length]}${i >= 64 ? `_${Math.floor(i / 64)}` : ''}`;
    return {
      type: 'function',
      function: {
        name,
        description: `Tool ${i + 1}: ${name.replace(/_/g, ' ')} in the workspace and return the matching entries as JSON.`,
        parameters: {
          type: 'object',
          properties: { query: { type: 'string', description: 'what to look for' }, limit: { type: 'integer', description: 'most entries to return' } },
          required: ['query'],
        },
      },
    };
  });
}
