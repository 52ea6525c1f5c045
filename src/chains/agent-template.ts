// The definition of a new agent: one ai/agent node on the default provider with the built-in file
// tools, ending in an `end` node. The default agent `main` is created from it on first start.

export const DEFAULT_SYSTEM_PROMPT = [
  'You are ${ruleChain.id}, an assistant hosted by Agent Service.',
  'The current time is ${now()}.',
  'You can read and write files in your workspace with your tools; use them when the user asks about files.',
  'Answer clearly and concisely.',
].join('\n');

export function agentTemplate(id = 'main', name = 'Main agent'): Record<string, unknown> {
  return {
    ruleChain: {
      id,
      name,
      additionalInfo: {
        category: 'agents',
        description: 'A general assistant with file tools in its workspace.',
      },
    },
    metadata: {
      firstNodeIndex: 0,
      nodes: [
        {
          id: 'agent',
          type: 'ai/agent',
          name: 'Agent',
          configuration: {
            url: '',
            key: '',
            model: '',
            systemPrompt: DEFAULT_SYSTEM_PROMPT,
            maxStep: 50,
            maxToolOutputLength: 50000,
            params: {},
            tools: [
              'read',
              'write',
              'edit',
              'grep',
              'glob',
              'skill',
              'memory_search',
              'memory_get',
              'memory_write',
              'session_search',
            ].map((tool) => ({
              type: 'builtin',
              name: tool,
            })),
          },
        },
        { id: 'reply', type: 'end', name: 'Reply' },
      ],
      connections: [{ fromId: 'agent', toId: 'reply', type: 'Success' }],
    },
  };
}
