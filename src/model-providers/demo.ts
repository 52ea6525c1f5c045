/**
 * The built-in demo model: deterministic, in-process, no network, no delay. It lets a fresh
 * install answer chats and run tools before any real provider is configured. Given a request it:
 *
 * - answers a tool result (the last message has role "tool") with a short summary of it;
 * - calls `glob` {"pattern":"**\/*"} when the last user message asks to list files ("list files",
 *   "list the files", "what files", "which files", "show files", or the word "ls") and `glob` is offered;
 * - calls `read` {"path": "<file>"} when the last user message says "read <file>" (a word with a
 *   "." or "/") and `read` is offered;
 * - otherwise echoes the start of the message.
 *
 * Every text answer starts with "[demo model]" and says how to configure a real provider. Text
 * streams in a few deltas; usage is estimated as characters / 4; finish is "stop" or "tool_calls".
 */
import type { ChatMessage, ModelEvent, ModelProvider, ModelRequest, ToolCallRequest } from './types.ts';

export const DEMO_PROVIDER_ID = 'demo';

const CONFIGURE_HINT =
  'To use a real model, add a provider in the web UI (/ui/settings), with `agent-service providers add`, under models.providers in config.yaml, or with POST /api/v1/config/models/providers.';

const LIST_FILES = /\b(list (the |all |my )?files|what files|which files|show (me )?(the )?files|ls)\b/iu;
const READ_FILE = /\bread\s+(?:the\s+)?(?:file\s+)?[`'"]?([\w./-]*[./][\w./-]*)/iu;

export function createDemoProvider(): ModelProvider {
  return {
    id: DEMO_PROVIDER_ID,
    demo: true,
    stream: (request) => streamDemo(request),
  };
}

async function* streamDemo(request: ModelRequest): AsyncGenerator<ModelEvent> {
  request.signal.throwIfAborted();
  const promptTokens = estimateTokens(request.messages.map(messageText).join('\n'));
  const call = toolCallFor(request);
  if (call) {
    yield { type: 'tool-call', call };
    yield usage(promptTokens, estimateTokens(call.name + call.arguments));
    yield { type: 'finish', reason: 'tool_calls' };
    return;
  }
  const answer = answerFor(request.messages);
  for (const piece of splitIntoDeltas(answer)) yield { type: 'text-delta', text: piece };
  yield usage(promptTokens, estimateTokens(answer));
  yield { type: 'finish', reason: 'stop' };
}

function toolCallFor(request: ModelRequest): ToolCallRequest | undefined {
  const last = request.messages.at(-1);
  if (last?.role !== 'user') return undefined;
  const offered = new Set((request.tools ?? []).map((tool) => tool.name));
  const id = `demo-call-${request.messages.filter((message) => message.role === 'tool').length + 1}`;
  if (offered.has('glob') && LIST_FILES.test(last.content)) {
    return { id, name: 'glob', arguments: JSON.stringify({ pattern: '**/*' }) };
  }
  const path = READ_FILE.exec(last.content)?.[1];
  if (offered.has('read') && path) return { id, name: 'read', arguments: JSON.stringify({ path }) };
  return undefined;
}

function answerFor(messages: ChatMessage[]): string {
  const last = messages.at(-1);
  if (last?.role === 'tool') return summariseToolResult(messages, last.toolCallId, last.content);
  const question =
    [...messages]
      .reverse()
      .find((message) => message.role === 'user')
      ?.content.trim() ?? '';
  const quoted = question.length > 120 ? `${question.slice(0, 120)}…` : question;
  const heard = quoted ? `You said: "${quoted}". ` : '';
  return `[demo model] I am the built-in demo model, not a real language model. ${heard}I can list files ("list files") and read a file ("read README.md") when those tools are enabled. ${CONFIGURE_HINT}`;
}

function summariseToolResult(messages: ChatMessage[], toolCallId: string, content: string): string {
  const name =
    messages
      .flatMap((message) => (message.role === 'assistant' ? (message.toolCalls ?? []) : []))
      .find((call) => call.id === toolCallId)?.name ?? 'tool';
  const lines = content.split('\n').filter((line) => line.trim() !== '');
  const preview = lines.slice(0, 10).join('\n');
  const more = lines.length > 10 ? `\n… and ${lines.length - 10} more lines.` : '';
  // The glob tool reports an empty result as a sentence, not as a file name.
  const noFiles = name === 'glob' && content.startsWith('no files match');
  const summary = noFiles
    ? "The workspace has no files yet. Ask me to write one, or add files to the agent's workspace folder."
    : name === 'glob'
      ? `The workspace has ${lines.length} matching file${lines.length === 1 ? '' : 's'}:\n${preview}${more}`
      : `The ${name} tool returned ${lines.length} line${lines.length === 1 ? '' : 's'} (${content.length} characters):\n${preview}${more}`;
  return `[demo model] ${summary}\n\nThis is the built-in demo model. ${CONFIGURE_HINT}`;
}

function splitIntoDeltas(text: string): string[] {
  const words = text.split(/(?<= )/u);
  const size = Math.ceil(words.length / 4);
  const pieces: string[] = [];
  for (let start = 0; start < words.length; start += size)
    pieces.push(words.slice(start, start + size).join(''));
  return pieces;
}

function messageText(message: ChatMessage): string {
  if (message.role === 'assistant') {
    return (
      (message.content ?? '') + (message.toolCalls ?? []).map((call) => call.name + call.arguments).join('')
    );
  }
  return message.content;
}

function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

function usage(promptTokens: number, completionTokens: number): ModelEvent {
  return {
    type: 'usage',
    usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens },
  };
}
