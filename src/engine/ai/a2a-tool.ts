// The `a2a` agent tool: a remote agent (another Agent Service, or any A2A v1.0 server) as a
// sub-agent. config: `url` (its agent card's URL, or its endpoint) and optional `apiKey` (a
// literal, or a ${vars.*} / ${global.*} template resolved at call time). The remote's tool calls
// are streamed into this turn's events as they happen; stopping the turn cancels the remote task.
import { z } from 'zod';
import { A2ARemoteAgent } from '../../tools/a2a.ts';
import { parseToolConfig } from '../../tools/tool-config.ts';
import { pathResolver, renderTemplate } from '../template.ts';
import type { BoundTool, ToolEntry } from './agent-tools.ts';
import { TASK_PARAMETERS, taskDescription, taskInput } from './subagent-task.ts';

const configSchema = z.object({
  url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
  apiKey: z.string().max(4096).optional(),
});

export interface A2AToolDeps {
  /** `global` with its secrets, as the AI nodes see it, for an apiKey template. */
  globals?: () => Record<string, unknown>;
  vars?: Record<string, string>;
}

export function a2aTool(entry: ToolEntry, name: string, deps: A2AToolDeps = {}): BoundTool {
  const config = parseToolConfig('a2a', configSchema, entry.config);
  let apiKey = config.apiKey;
  if (apiKey?.includes('${')) {
    const resolve = pathResolver({ global: deps.globals ?? (() => ({})), vars: deps.vars ?? {} });
    apiKey = renderTemplate(apiKey, resolve);
  }
  const remote = new A2ARemoteAgent({ url: config.url, ...(apiKey ? { apiKey } : {}) });
  return {
    name,
    description: entry.description ?? taskDescription(`the remote agent at ${remote.label}`),
    parameters: TASK_PARAMETERS,
    toolType: 'subagent',
    timeoutMs: entry.timeout,
    async execute(args, context, node) {
      return remote.ask(taskInput(args), {
        signal: context.signal,
        // The remote's tool calls show in this turn's stream, named after the remote tool.
        onToolEvent: (event) =>
          node.emit(
            event.phase === 'start'
              ? {
                  type: 'tool-call-start',
                  toolCallId: `${name}:${event.id}`,
                  toolCallName: event.name,
                  arguments: event.arguments ?? '',
                  toolType: 'subagent',
                }
              : {
                  type: 'tool-call-result',
                  toolCallId: `${name}:${event.id}`,
                  toolCallName: event.name,
                  content: event.content ?? '',
                  toolType: 'subagent',
                },
          ),
      });
    },
  };
}
