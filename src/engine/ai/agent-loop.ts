// The tool loop of one agent turn: ask the model, run the tools it calls, give it the results, and
// repeat until it answers without tools or maxStep is reached. Text and tool events stream out
// through the node context as they happen.
import { errorMessage } from '../../core/errors.ts';
import { randomToken } from '../../core/ids.ts';
import type {
  ChatMessage,
  ModelParams,
  ModelProvider,
  ToolCallRequest,
  Usage,
} from '../../model-providers/types.ts';
import type { ToolContext } from '../../tools/types.ts';
import type { NodeContext } from '../types.ts';
import type { BoundTool } from './agent-tools.ts';

export interface AgentLoopOptions {
  provider: ModelProvider;
  model: string;
  messages: ChatMessage[];
  tools: BoundTool[];
  params: ModelParams;
  maxStep: number;
  maxToolOutputLength: number;
  node: NodeContext;
  toolContext: Omit<ToolContext, 'signal'>;
}

export interface AgentLoopResult {
  text: string;
  /** Messages of this turn after the input: assistant replies, tool calls and tool results. */
  added: ChatMessage[];
}

/** How often the same tool may be called with the same arguments before the loop refuses. */
const MAX_REPEATS = 3;

function truncate(text: string, limit: number): string {
  return text.length > limit
    ? `${text.slice(0, limit)}\n[... output truncated at ${limit} characters]`
    : text;
}

function parseArguments(text: string): Record<string, unknown> | string {
  if (text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
    return 'the arguments must be a JSON object';
  } catch {
    return 'the arguments are not valid JSON';
  }
}

async function runTool(
  tool: BoundTool | undefined,
  call: ToolCallRequest,
  options: AgentLoopOptions,
): Promise<string> {
  if (!tool) return `error: there is no tool named "${call.name}"`;
  const args = parseArguments(call.arguments);
  if (typeof args === 'string') return `error: ${args}`;
  const signal = AbortSignal.any([options.node.signal, AbortSignal.timeout(tool.timeoutMs)]);
  try {
    return await tool.execute(args, { ...options.toolContext, signal }, options.node);
  } catch (error) {
    if (options.node.signal.aborted) throw error;
    if (signal.aborted) return `error: the tool did not finish within ${tool.timeoutMs} ms`;
    return `error: ${errorMessage(error)}`;
  }
}

export async function runAgentLoop(options: AgentLoopOptions): Promise<AgentLoopResult> {
  const { node, provider } = options;
  const messages = [...options.messages];
  const added: ChatMessage[] = [];
  const byName = new Map(options.tools.map((tool) => [tool.name, tool]));
  const specs = options.tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
  }));
  const repeats = new Map<string, number>();
  let text = '';
  for (let step = 0; step < options.maxStep; step++) {
    text = '';
    const calls: ToolCallRequest[] = [];
    const stream = provider.stream({
      model: options.model,
      messages,
      ...(specs.length > 0 ? { tools: specs } : {}),
      params: options.params,
      signal: node.signal,
    });
    for await (const event of stream) {
      if (event.type === 'text-delta') {
        text += event.text;
        node.emit({ type: 'text-delta', text: event.text });
      } else if (event.type === 'tool-call') {
        calls.push({ ...event.call, id: event.call.id || `call_${randomToken(9)}` });
      } else if (event.type === 'usage') {
        node.emit({ type: 'usage', usage: event.usage satisfies Usage });
      }
    }
    const assistant: ChatMessage = {
      role: 'assistant',
      content: text === '' ? null : text,
      ...(calls.length > 0 ? { toolCalls: calls } : {}),
    };
    messages.push(assistant);
    added.push(assistant);
    if (calls.length === 0) return { text, added };
    for (const call of calls) {
      const tool = byName.get(call.name);
      const toolType = tool?.toolType ?? 'builtin';
      node.emit({
        type: 'tool-call-start',
        toolCallId: call.id,
        toolCallName: call.name,
        arguments: call.arguments,
        toolType,
      });
      const key = `${call.name}\u0000${call.arguments}`;
      const count = (repeats.get(key) ?? 0) + 1;
      repeats.set(key, count);
      const output =
        count > MAX_REPEATS
          ? `note: ${call.name} was already called ${MAX_REPEATS} times with these same arguments; its result will not change. Do not call it again; answer with what you have.`
          : truncate(await runTool(tool, call, options), options.maxToolOutputLength);
      node.emit({
        type: 'tool-call-result',
        toolCallId: call.id,
        toolCallName: call.name,
        content: output,
        toolType,
      });
      const result: ChatMessage = { role: 'tool', toolCallId: call.id, content: output };
      messages.push(result);
      added.push(result);
    }
  }
  const note = `[stopped after ${options.maxStep} steps without a final answer]`;
  node.emit({ type: 'text-delta', text: note });
  added.push({ role: 'assistant', content: note });
  return { text: note, added };
}
