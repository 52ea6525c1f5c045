// What a sub-agent tool (a local agent or a remote A2A one) offers the model: one argument, the
// whole task as text.

/** The JSON Schema of a sub-agent tool's arguments. */
export const TASK_PARAMETERS: Record<string, unknown> = {
  type: 'object',
  properties: { input: { type: 'string', description: 'The task or question for the agent.' } },
  required: ['input'],
};

/** The tool description the model sees unless the entry gives one. */
export function taskDescription(agent: string): string {
  return `Asks ${agent} to handle a task; give it the whole task as input.`;
}

/** The task the model gave: `input`, or its arguments as JSON when they have no text input. */
export function taskInput(args: Record<string, unknown>): string {
  return typeof args['input'] === 'string' ? args['input'] : JSON.stringify(args);
}
