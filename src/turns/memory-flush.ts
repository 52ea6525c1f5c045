// The memory flush: before a compaction folds part of a session, the agent gets one silent turn
// (nothing of it is shown or kept in the session) to write what matters to its memory files with
// memory_write. It sees the part about to be folded as a transcript, and may only append.
import { errorMessage } from '../core/errors.ts';
import type { ChatMessage, ToolCallRequest, ToolSpec } from '../model-providers/types.ts';
import { createMemoryWriteTool } from '../tools/memory-tools.ts';
import type { MemoryAccess } from '../tools/types.ts';
import type { SummaryTarget } from './summariser.ts';
import { transcriptLine } from './summariser.ts';

export const FLUSH_INSTRUCTIONS = [
  'Memory flush: the part of the conversation below is about to be compacted into a summary.',
  'Before that, write anything worth remembering for later conversations (facts about the user, decisions,',
  'exact identifiers such as order numbers, ids, URLs and amounts) with the memory_write tool.',
  'Append only what is new; never rewrite existing notes. When there is nothing to keep, answer NO_REPLY.',
].join('\n');

const MAX_STEPS = 3;

export interface FlushInput {
  target: SummaryTarget;
  messages: ChatMessage[];
  memory: MemoryAccess;
  window: number;
  signal: AbortSignal;
}

/** The newest part of the transcript that fits `budget` tokens. */
function tail(lines: string[], budget: number): string {
  const kept: string[] = [];
  let size = 0;
  for (let index = lines.length - 1; index >= 0; index -= 1) {
    const line = lines[index] ?? '';
    const cost = Math.ceil(line.length / 4) + 1;
    if (size + cost > budget) break;
    kept.unshift(line);
    size += cost;
  }
  return kept.join('\n\n');
}

/** Runs the silent flush turn; returns how many notes it wrote. A failing flush never stops the compaction. */
export async function flushMemory(input: FlushInput): Promise<number> {
  const tool = createMemoryWriteTool();
  const spec: ToolSpec = { name: tool.name, description: tool.description, parameters: tool.parameters };
  const transcript = tail(input.messages.map(transcriptLine), Math.floor(input.window / 2));
  const messages: ChatMessage[] = [
    { role: 'system', content: FLUSH_INSTRUCTIONS },
    { role: 'user', content: `Conversation about to be compacted:\n${transcript}` },
  ];
  let written = 0;
  try {
    for (let step = 0; step < MAX_STEPS; step += 1) {
      const calls: ToolCallRequest[] = [];
      let text = '';
      for await (const event of input.target.provider.stream({
        model: input.target.model,
        caller: input.target.caller,
        messages,
        tools: [spec],
        signal: input.signal,
      })) {
        if (event.type === 'tool-call') calls.push(event.call);
        else if (event.type === 'text-delta') text += event.text;
      }
      if (calls.length === 0) break;
      messages.push({ role: 'assistant', content: text === '' ? null : text, toolCalls: calls });
      for (const call of calls) {
        let result: string;
        try {
          const args = JSON.parse(call.arguments || '{}') as Record<string, unknown>;
          if (call.name === tool.name) {
            const context = { signal: input.signal, agentId: '', workspaceDir: '', memory: input.memory };
            result = await tool.execute(args, context);
            written += 1;
          } else result = `error: only ${tool.name} can be called now`;
        } catch (error) {
          result = `error: ${errorMessage(error)}`;
        }
        messages.push({ role: 'tool', toolCallId: call.id, content: result });
      }
    }
  } catch (error) {
    if (input.signal.aborted) throw error;
  }
  return written;
}
