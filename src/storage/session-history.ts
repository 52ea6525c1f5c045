// The stored shapes of a session (messages with their ids and status, summary entries) and how the
// model is shown them: a summary as a system message, a stopped answer marked as stopped, a failed
// turn as its error. Pure functions, shared by the store and compaction.
import type { Selectable } from 'kysely';
import type { ChatMessage, Usage } from '../model-providers/types.ts';
import type { SessionSummariesTable } from './database.ts';

/**
 * A finished turn's token usage, kept with its answer (what the chat's usage footer shows); its
 * model is the one the turn last called, as the agent names it, where known.
 */
export type MessageUsage = Usage;

export interface StoredMessage {
  id: number;
  message: ChatMessage;
  tokens: number;
  status: 'stopped' | 'failed' | null;
  error: string | null;
  createdAt: number;
  usage?: MessageUsage;
}

export interface StoredSummary {
  id: number;
  /** The first and last message ids this entry folds (with every summary before it). */
  firstId: number;
  lastId: number;
  content: string;
  tokens: number;
  createdAt: number;
}

export interface SessionLimits {
  maxMessages: number;
  maxTokens: number;
}

export const SUMMARY_HEADING = '[Summary of the earlier conversation]';

export function storedMessage(row: {
  id: number;
  message: string;
  tokens: number;
  status: string | null;
  error: string | null;
  created_at: number;
  usage?: string | null;
}): StoredMessage {
  return {
    id: Number(row.id),
    message: JSON.parse(row.message) as ChatMessage,
    tokens: Number(row.tokens),
    status: row.status === 'stopped' || row.status === 'failed' ? row.status : null,
    error: row.error,
    createdAt: Number(row.created_at),
    ...(row.usage ? { usage: JSON.parse(row.usage) as MessageUsage } : {}),
  };
}

export function storedSummary(row: Selectable<SessionSummariesTable>): StoredSummary {
  return {
    id: Number(row.id),
    firstId: Number(row.first_id),
    lastId: Number(row.last_id),
    content: row.content,
    tokens: Number(row.tokens),
    createdAt: Number(row.created_at),
  };
}

/** The summary as the model reads it, right after the system prompt. */
export function summaryMessage(summary: Pick<StoredSummary, 'content'>): ChatMessage {
  return { role: 'system', content: `${SUMMARY_HEADING}\n${summary.content}` };
}

/** A stored message as the model reads it: a stopped answer, a partial one and a failed turn say so. */
export function forModel(stored: StoredMessage): ChatMessage {
  const { message } = stored;
  if (stored.status === null || message.role !== 'assistant') return message;
  if (stored.status === 'stopped')
    return {
      ...message,
      content: `${message.content ?? ''}\n\n[this answer was stopped before it was finished]`.trim(),
    };
  const error = stored.error ?? 'unknown error';
  // A partial answer (the stream broke off after text was sent) is kept, with what cut it short.
  if (message.content)
    return { ...message, content: `${message.content}\n\n[this answer broke off: ${error}]` };
  return { ...message, content: `[this turn failed: ${error}]` };
}

/** The text session search indexes for a message: what was said, the tools called, their results. */
export function searchableText(message: ChatMessage): string {
  if (message.role === 'assistant') {
    const calls = (message.toolCalls ?? []).map((call) => `${call.name} ${call.arguments}`);
    return [message.content ?? '', ...calls].filter((part) => part !== '').join('\n');
  }
  return message.content;
}

/** The newest whole turns (each starting at a user message) within the limits; the newest always. */
export function fitLimits(messages: StoredMessage[], limits: SessionLimits): StoredMessage[] {
  let count = messages.length;
  let tokens = messages.reduce((sum, entry) => sum + entry.tokens, 0);
  if (count <= limits.maxMessages && tokens <= limits.maxTokens) return messages;
  const starts = messages.flatMap((entry, index) => (entry.message.role === 'user' ? [index] : []));
  let cut = 0;
  for (const start of [...starts.filter((index) => index > 0), messages.length]) {
    if (count <= limits.maxMessages && tokens <= limits.maxTokens) break;
    if (start === messages.length) break;
    for (let index = cut; index < start; index += 1) {
      count -= 1;
      tokens -= messages[index]?.tokens ?? 0;
    }
    cut = start;
  }
  return messages.slice(cut);
}
