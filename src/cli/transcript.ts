// A conversation as the command line shows it: `user: ...` and `assistant: ...` lines, and the
// messages of a session fetched for `sessions show` and for a chat that resumes a session.
import type { ApiClient } from './client.ts';
import { enc } from './context.ts';
import { CliError } from './errors.ts';

export interface SessionMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: unknown;
  toolCalls?: Array<{ name?: string; function?: { name?: string } }>;
}

function text(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((part: { type?: string; text?: string }) =>
        part.type === 'text' ? (part.text ?? '') : `[${part.type}]`,
      )
      .join(' ');
  return content === null || content === undefined ? '' : JSON.stringify(content);
}

/** A conversation's messages as lines, `user: ...` and `assistant: ...`, tool calls named. */
export function transcriptLines(messages: SessionMessage[], bold: (text: string) => string): string {
  return messages
    .filter((message) => message.role !== 'system' && message.role !== 'tool')
    .map((message) => {
      const calls = (message.toolCalls ?? []).map((call) => call.function?.name ?? call.name ?? 'tool');
      const said = text(message.content);
      const head = bold(`${message.role}:`);
      return `${head} ${said}${calls.length > 0 ? `${said ? ' ' : ''}[calls ${calls.join(', ')}]` : ''}\n`;
    })
    .join('');
}

/** The messages of a session, oldest first; undefined when there is no such session. */
export async function sessionMessages(
  api: ApiClient,
  agent: string,
  session: string,
): Promise<SessionMessage[] | undefined> {
  const path = `/agents/${enc(agent)}/sessions/${enc(session)}/messages`;
  try {
    return (await api.all<SessionMessage>(path)).data;
  } catch (error) {
    if (error instanceof CliError && /\(HTTP 404 from /.test(error.message)) return undefined;
    throw error;
  }
}
