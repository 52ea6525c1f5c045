// A conversation exported: its active branch as Markdown (for reading and sharing) or as JSON (the
// session and every message of the branch, as GET .../messages shows them, for tools).
import type { SessionMessageView, SessionView } from './sessions.schema.ts';

export interface ExportFile {
  filename: string;
  contentType: string;
  body: string;
}

/** A file name from the title: letters, digits (any script), "-" and "_", at most 60. */
function fileStem(session: SessionView): string {
  const title = (session.title ?? session.preview) || session.sessionId;
  const stem = title
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}_-]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return stem === '' ? 'conversation' : stem;
}

function quoteBlock(text: string): string {
  const fence = text.includes('```') ? '~~~~' : '```';
  return `${fence}\n${text}\n${fence}`;
}

export function exportMarkdown(session: SessionView, messages: SessionMessageView[]): string {
  const title = session.title ?? (session.preview || session.sessionId);
  const lines = [
    `# ${title.replace(/\n/g, ' ')}`,
    '',
    `- Agent: ${session.agentId}`,
    `- Conversation: ${session.sessionId}`,
    `- Created: ${session.createdAt}`,
    `- Updated: ${session.updatedAt}`,
    '',
  ];
  const results = new Map(
    messages.flatMap((message) =>
      message.role === 'tool' && message.toolCallId ? [[message.toolCallId, message.content ?? '']] : [],
    ),
  );
  for (const message of messages) {
    if (message.role === 'tool' || message.role === 'system') continue;
    if (message.role === 'summary') {
      lines.push('> **Summary of the earlier conversation**', '>');
      lines.push(...(message.content ?? '').split('\n').map((line) => `> ${line}`), '');
      continue;
    }
    lines.push(`## ${message.role === 'user' ? 'User' : 'Assistant'}`, '');
    if (message.content) lines.push(message.content, '');
    for (const image of message.images ?? [])
      lines.push(image.startsWith('data:') ? '_(an attached image)_' : `![image](${image})`, '');
    for (const call of message.toolCalls ?? []) {
      lines.push(`<details><summary>Tool: ${call.name}</summary>`, '', quoteBlock(call.arguments));
      const result = results.get(call.id);
      if (result !== undefined) lines.push('', quoteBlock(result));
      lines.push('', '</details>', '');
    }
    if (message.status === 'stopped') lines.push('_(stopped)_', '');
    if (message.status === 'failed') lines.push(`_(failed: ${message.error ?? 'unknown error'})_`, '');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

export function exportFile(
  session: SessionView,
  messages: SessionMessageView[],
  format: 'md' | 'json',
): ExportFile {
  const stem = fileStem(session);
  if (format === 'json')
    return {
      filename: `${stem}.json`,
      contentType: 'application/json; charset=utf-8',
      body: `${JSON.stringify({ session, messages, exportedAt: new Date().toISOString() }, null, 2)}\n`,
    };
  return {
    filename: `${stem}.md`,
    contentType: 'text/markdown; charset=utf-8',
    body: exportMarkdown(session, messages),
  };
}
