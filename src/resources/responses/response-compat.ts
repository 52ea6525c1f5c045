// A compatibility view for one client: the AI SDK 5 OpenAI provider (`@ai-sdk/openai` 2.x; its
// User-Agent names `ai/5.x` under generateText/streamText, else `ai-sdk/openai/2.x`) rejects a non-streamed answer holding an item
// type it does not know (`mcp_call`) and drops such items from what it replays. For it, a server
// tool call is shown as a `reasoning` item under the same id, its summary naming the call and its
// result; the SDK replays it by id (item_reference), which resolves to the stored mcp_call. Every
// other client, and what is stored, sees the mcp_call itself.
import type { OutputItem, StreamEvent } from './response-builder.ts';

export function wantsReasoningView(userAgent: string | undefined): boolean {
  return /(^|\s)ai\/5\.|\bai-sdk\/openai\/2\./.test(userAgent ?? '');
}

function summaryText(item: OutputItem): string {
  const output = typeof item['output'] === 'string' ? ` -> ${item['output']}` : '';
  return `${String(item['server_label'])} tool ${String(item['name'])}(${String(item['arguments'])})${output}`;
}

function asReasoning(item: OutputItem, withSummary: boolean): OutputItem {
  if (item.type !== 'mcp_call') return item;
  return {
    id: item.id,
    type: 'reasoning',
    summary: withSummary ? [{ type: 'summary_text', text: summaryText(item) }] : [],
  };
}

/** A Response with its server tool calls shown as reasoning items. */
export function reasoningView(response: Record<string, unknown>): Record<string, unknown> {
  const output = response['output'] as OutputItem[] | undefined;
  return output ? { ...response, output: output.map((item) => asReasoning(item, true)) } : response;
}

/** Wraps a stream's event sink: server tool call events become reasoning events, renumbered. */
function reasoningEvents(send: (event: StreamEvent) => void): (event: StreamEvent) => void {
  let sequence = 0;
  const forward = (type: string, fields: Record<string, unknown>): void =>
    send({ ...fields, type, sequence_number: sequence++ });
  return (event) => {
    const { type, sequence_number: _number, ...fields } = event;
    const item = fields['item'] as OutputItem | undefined;
    if (type === 'response.mcp_call.in_progress' || type === 'response.mcp_call.completed') return;
    if (type === 'response.output_item.added' && item?.type === 'mcp_call') {
      forward(type, { ...fields, item: asReasoning(item, false) });
      return;
    }
    if (type === 'response.output_item.done' && item?.type === 'mcp_call') {
      const at = { item_id: item.id, output_index: fields['output_index'], summary_index: 0 };
      const text = summaryText(item);
      forward('response.reasoning_summary_part.added', { ...at, part: { type: 'summary_text', text: '' } });
      forward('response.reasoning_summary_text.delta', { ...at, delta: text });
      forward('response.reasoning_summary_text.done', { ...at, text });
      forward('response.reasoning_summary_part.done', { ...at, part: { type: 'summary_text', text } });
      forward(type, { ...fields, item: asReasoning(item, true) });
      return;
    }
    const response = fields['response'] as Record<string, unknown> | undefined;
    forward(type, response ? { ...fields, response: reasoningView(response) } : fields);
  };
}

/** A stream's events with its server tool calls shown as reasoning, renumbered (see reasoningEvents). */
export async function* reasoningStream(events: AsyncIterable<StreamEvent>): AsyncGenerator<StreamEvent> {
  const shown: StreamEvent[] = [];
  const forward = reasoningEvents((event) => shown.push(event));
  for await (const event of events) {
    forward(event);
    yield* shown.splice(0);
  }
}
