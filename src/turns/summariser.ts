// The summariser of compaction and its guard. The folded messages are written out as a transcript
// and summarised (in pieces when they do not fit the model's window, each piece folded into the
// summary so far). A summary that is empty or drops an exact identifier, or a summariser that
// fails or times out, is retried a bounded number of times; after that the compaction fails and
// the caller leaves the history as it was.
import type { ModelCaller } from '../model-providers/caller.ts';
import { AppError, errorMessage } from '../core/errors.ts';
import type { ChatMessage, ModelProvider } from '../model-providers/types.ts';
import { estimateTokens } from '../storage/session-store.ts';
import { missingIdentifiers } from './identifiers.ts';

export const SUMMARY_INSTRUCTIONS = [
  'You compact a conversation for an assistant that will continue it with only your summary and the newest messages.',
  'Write a faithful summary under exactly these headings: "## Goals", "## Facts and decisions", "## Open questions".',
  'Copy every exact identifier verbatim: order numbers, ids, UUIDs, URLs, e-mail addresses, file paths and amounts.',
  'Keep everything the previous summary holds that still matters. Answer with the summary only.',
].join('\n');

export interface SummaryTarget {
  provider: ModelProvider;
  model: string;
  /** Who the call is for (the turn's caller, for metering and traces). */
  caller?: ModelCaller | undefined;
}

export interface SummariseInput {
  target: SummaryTarget;
  previous: string | undefined;
  messages: ChatMessage[];
  /** Identifiers the summary must hold verbatim. */
  required: string[];
  window: number;
  signal: AbortSignal;
  /** Tries per piece (default 3). */
  attempts?: number;
  /** Time limit of one summariser call, in ms (default 120 s). */
  timeoutMs?: number;
}

const TOOL_RESULT_CHARS = 2000;

/** One message as a transcript line; long tool results are cut (session search keeps them whole). */
export function transcriptLine(message: ChatMessage): string {
  switch (message.role) {
    case 'system':
      return `system: ${message.content}`;
    case 'user':
      return `user: ${message.content}`;
    case 'assistant': {
      const calls = (message.toolCalls ?? [])
        .map((call) => `\n[called ${call.name}(${call.arguments})]`)
        .join('');
      return `assistant: ${message.content ?? ''}${calls}`;
    }
    case 'tool': {
      const text = message.content;
      return `tool result: ${text.length > TOOL_RESULT_CHARS ? `${text.slice(0, TOOL_RESULT_CHARS)} [...]` : text}`;
    }
  }
}

/** The folded messages in pieces whose transcript fits `budget` tokens each. */
function pieces(messages: ChatMessage[], budget: number): string[][] {
  const result: string[][] = [];
  let current: string[] = [];
  let size = 0;
  for (const message of messages) {
    let line = transcriptLine(message);
    if (line.length / 4 > budget) line = `${line.slice(0, budget * 4 - 40)} [...]`;
    const tokens = estimateTokens({ role: 'user', content: line });
    if (current.length > 0 && size + tokens > budget) {
      result.push(current);
      current = [];
      size = 0;
    }
    current.push(line);
    size += tokens;
  }
  if (current.length > 0) result.push(current);
  return result;
}

async function ask(input: SummariseInput, messages: ChatMessage[]): Promise<string> {
  const signal = AbortSignal.any([input.signal, AbortSignal.timeout(input.timeoutMs ?? 120_000)]);
  let text = '';
  for await (const event of input.target.provider.stream({
    model: input.target.model,
    caller: input.target.caller,
    messages,
    params: { temperature: 0 },
    signal,
  }))
    if (event.type === 'text-delta') text += event.text;
  return text.trim();
}

/**
 * The new summary of `previous` and `messages`, holding every required identifier. Throws
 * AppError('upstream') when the summariser cannot give one within its attempts.
 */
export async function summarise(input: SummariseInput): Promise<string> {
  const attempts = input.attempts ?? 3;
  // Half the window for the transcript, the rest for the instructions, the summary so far and the answer.
  const budget = Math.max(
    500,
    Math.floor(input.window / 2) - estimateTokens({ role: 'user', content: input.previous ?? '' }),
  );
  let summary = input.previous;
  for (const piece of pieces(input.messages, budget)) {
    const transcript = piece.join('\n\n');
    // The new summary replaces the old one: it must hold the identifiers of both.
    const mustKeep = input.required.filter((id) => transcript.includes(id) || (summary ?? '').includes(id));
    const request = `${summary ? `Previous summary:\n${summary}\n\n` : ''}Conversation to fold in:\n${transcript}`;
    let reason = '';
    let done: string | undefined;
    for (let attempt = 1; attempt <= attempts && done === undefined; attempt += 1) {
      const messages: ChatMessage[] = [
        { role: 'system', content: SUMMARY_INSTRUCTIONS },
        { role: 'user', content: request },
        ...(reason
          ? [
              {
                role: 'user' as const,
                content: `Your previous summary was refused: ${reason}. Write it again.`,
              },
            ]
          : []),
      ];
      try {
        const text = await ask(input, messages);
        const missing = missingIdentifiers(mustKeep, text);
        if (text === '') reason = 'it was empty';
        else if (missing.length > 0) reason = `it dropped these identifiers: ${missing.join(', ')}`;
        else done = text;
      } catch (error) {
        if (input.signal.aborted) throw error;
        reason = `the summariser failed (${errorMessage(error)})`;
      }
    }
    if (done === undefined)
      throw new AppError('upstream', `compaction failed after ${attempts} attempts: ${reason}`);
    summary = done;
  }
  return summary ?? '';
}
