// The tool loop of one agent turn: ask the model, run the tools it calls, give it the results, and
// repeat until it answers without tools or maxStep is reached. Text and tool events stream out
// through the node context as they happen. Tools the turn's client runs itself (client tools) are
// offered too; a step that calls one ends the loop, after the server tools of that step have run.
import { randomUUID } from 'node:crypto';
import { AppError, errorMessage } from '../../core/errors.ts';
import type {
  ChatMessage,
  ModelEvent,
  ModelParams,
  ModelProvider,
  ToolCallRequest,
  ToolSpec,
  Usage,
} from '../../model-providers/types.ts';
import type { ToolContext } from '../../tools/types.ts';
import type { NodeContext } from '../types.ts';
import type { BoundTool } from './agent-tools.ts';
import { fitRequest, isContextOverflow } from './context-fit.ts';

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
  /** Tokens a request may take (the window less the answer's reserve); unset: no check. */
  budget?: number;
  /**
   * The provider said the context is too long: the messages before this turn's steps, compacted,
   * to retry once with (undefined: nothing could be folded, the error stands).
   */
  onOverflow?: () => Promise<ChatMessage[] | undefined>;
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

/** Every tool call id the conversation already holds. */
function usedCallIds(messages: ChatMessage[]): Set<string> {
  const ids = new Set<string>();
  for (const message of messages) {
    if (message.role === 'tool') ids.add(message.toolCallId);
    else if (message.role === 'assistant') for (const call of message.toolCalls ?? []) ids.add(call.id);
  }
  return ids;
}

/**
 * The upstream's id while it is new to the conversation, else one of our own: some upstreams number
 * every call `call_1`, and a client (AG-UI, a session's history) tells calls apart by id alone.
 */
function uniqueCallId(id: string, used: Set<string>): string {
  let unique = id;
  while (unique === '' || used.has(unique)) unique = `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
  used.add(unique);
  return unique;
}

/** A forced tool choice holds for the first model call only, so a loop that ran a tool can answer. */
function paramsOfStep(params: ModelParams, step: number): ModelParams {
  const choice = params.toolChoice;
  if (step === 0 || choice === undefined || choice === 'auto' || choice === 'none') return params;
  const { toolChoice: _choice, ...rest } = params;
  return rest;
}

function clientSpecs(options: AgentLoopOptions, serverNames: Set<string>): ToolSpec[] {
  const specs = options.node.turn.conversation?.clientTools ?? [];
  for (const spec of specs) {
    if (serverNames.has(spec.name))
      throw new AppError('invalid', `tools: "${spec.name}" is the name of one of the agent's own tools`);
  }
  return specs;
}

/** One model call's events, retried once with a compacted context when the provider finds it too long. */
async function* modelStream(
  options: AgentLoopOptions,
  messages: ChatMessage[],
  added: ChatMessage[],
  request: (messages: ChatMessage[]) => AsyncIterable<ModelEvent>,
  overflowed: { done: boolean },
): AsyncIterable<ModelEvent> {
  let received = false;
  try {
    for await (const event of request(messages)) {
      received = true;
      yield event;
    }
  } catch (error) {
    if (received || overflowed.done || !options.onOverflow || !isContextOverflow(error)) throw error;
    overflowed.done = true;
    const base = await options.onOverflow();
    if (!base) throw error;
    messages.splice(0, messages.length, ...base, ...added);
    yield* request(messages);
  }
}

export async function runAgentLoop(options: AgentLoopOptions): Promise<AgentLoopResult> {
  const { node, provider } = options;
  const messages = [...options.messages];
  const overflowed = { done: false };
  const added: ChatMessage[] = [];
  const byName = new Map(options.tools.map((tool) => [tool.name, tool]));
  const client = clientSpecs(options, new Set(byName.keys()));
  const clientNames = new Set(client.map((spec) => spec.name));
  const specs: ToolSpec[] = [
    ...options.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters,
    })),
    ...client,
  ];
  const usedIds = usedCallIds(messages);
  const repeats = new Map<string, number>();
  let text = '';
  for (let step = 0; step < options.maxStep; step++) {
    text = '';
    const calls: ToolCallRequest[] = [];
    const params = paramsOfStep(options.params, step);
    const request = (current: ChatMessage[]): AsyncIterable<ModelEvent> =>
      provider.stream({
        model: options.model,
        messages: options.budget === undefined ? current : fitRequest(current, specs, options.budget),
        ...(specs.length > 0 ? { tools: specs } : {}),
        params,
        signal: node.signal,
        caller: node.turn.caller,
      });
    const stream = modelStream(options, messages, added, request, overflowed);
    for await (const event of stream) {
      if (event.type === 'text-delta') {
        text += event.text;
        node.emit({ type: 'text-delta', text: event.text });
      } else if (event.type === 'tool-call') {
        calls.push({ ...event.call, id: uniqueCallId(event.call.id, usedIds) });
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
    const clientCalls = calls.filter((call) => clientNames.has(call.name));
    for (const call of calls) {
      if (clientNames.has(call.name)) continue;
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
    if (clientCalls.length > 0) {
      node.emit({ type: 'client-tool-calls', calls: clientCalls });
      return { text, added };
    }
  }
  const note = `[stopped after ${options.maxStep} steps without a final answer]`;
  node.emit({ type: 'text-delta', text: note });
  added.push({ role: 'assistant', content: note });
  return { text: note, added };
}
