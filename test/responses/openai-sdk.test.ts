// The Responses API with the `openai` SDK, unchanged, against a real server on 127.0.0.1 whose
// model is the fake upstream: create, stream, parse, client tools, server tools shown as mcp_call
// items, previous_response_id (continue and fork), conversation, instructions and parameters.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { zodTextFormat } from 'openai/helpers/zod';
import { z } from 'zod';
import type { TestApp } from '../fakes/app-harness.ts';
import { agentDefinition } from '../fakes/builders.ts';
import type { FakeUpstream } from '../fakes/fake-upstream.ts';
import { createResource, startTimedAgentApp } from '../chat/timed-agent.ts';

interface UpstreamMessage {
  role: string;
  content: unknown;
  tool_call_id?: string;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
}
interface UpstreamBody {
  messages: UpstreamMessage[];
  tools?: Array<{ function: { name: string } }>;
  [key: string]: unknown;
}

/** The upstream's last conversation as `role:content` lines (system prompts left out). */
function summary(body: UpstreamBody): string[] {
  return body.messages
    .filter((message) => message.role !== 'system')
    .map((message) => {
      if (message.tool_calls)
        return `assistant:${message.tool_calls.map((call) => call.function.name).join(',')}`;
      if (message.role === 'tool') return `tool:${String(message.content)}`;
      return `${message.role}:${typeof message.content === 'string' ? message.content : JSON.stringify(message.content)}`;
    });
}

const weatherTool = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Weather of a city',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  },
  strict: true,
};

describe('Responses API with the openai SDK', () => {
  let upstream: FakeUpstream;
  let t: TestApp;
  let client: OpenAI;
  const last = (): UpstreamBody => upstream.requests.at(-1) as UpstreamBody;

  before(async () => {
    ({ upstream, t } = await startTimedAgentApp());
    client = new OpenAI({ baseURL: `${t.url}/api/v1`, apiKey: 'unused', maxRetries: 0 });
    await createResource(
      t,
      '/api/v1/agents',
      agentDefinition('plain', { tools: [], systemPrompt: 'You are plain.' }),
    );
  });
  after(async () => {
    await t.close();
    await upstream.close();
  });

  it('create: a string input answers with one assistant message, stored and readable by id', async () => {
    upstream.script({ text: 'Hello there.' });
    const response = await client.responses.create({ model: 'plain', input: 'hi' });
    assert.equal(response.object, 'response');
    assert.equal(response.status, 'completed');
    assert.equal(response.model, 'plain');
    assert.equal(response.output_text, 'Hello there.');
    assert.match(response.id, /^resp_[0-9a-f]{32}$/);
    assert.equal(response.output.length, 1);
    const message = response.output[0];
    assert.equal(message?.type, 'message');
    assert.equal(message?.type === 'message' && message.role, 'assistant');
    assert.ok(response.usage && response.usage.input_tokens > 0 && response.usage.total_tokens > 0);
    assert.deepEqual(summary(last()), ['user:hi']);

    const again = await client.responses.retrieve(response.id);
    assert.deepEqual(again.output, response.output);
    assert.equal(again.status, 'completed');
    const items = await client.responses.inputItems.list(response.id);
    assert.deepEqual(
      items.data.map((item) => item.type === 'message' && [item.role, item.content]),
      [['user', [{ type: 'input_text', text: 'hi' }]]],
    );
  });

  it('stream: semantic events in order with consecutive sequence numbers; the helper folds them', async () => {
    upstream.script({ text: 'One two three.' });
    const stream = client.responses.stream({ model: 'plain', input: 'count' });
    const events: Array<{ type: string; sequence_number: number }> = [];
    for await (const event of stream) events.push(event);
    const final = await stream.finalResponse();
    assert.equal(final.output_text, 'One two three.');
    assert.deepEqual(
      events.map((event) => event.sequence_number),
      events.map((_, index) => index),
    );
    const types = events.map((event) => event.type).filter((type, index, all) => all[index - 1] !== type);
    assert.deepEqual(types, [
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const deltas = events.filter((event) => event.type === 'response.output_text.delta').length;
    assert.ok(deltas >= 3, 'the text arrives in pieces');
    assert.equal((await client.responses.retrieve(final.id)).output_text, 'One two three.');
  });

  it("server tools: the agent's own tool calls are mcp_call items with their output, the text follows", async () => {
    upstream.script(
      { toolCalls: [{ id: 'call_c1', name: 'clock', arguments: {} }] },
      { text: 'It is 12:00.' },
    );
    const stream = client.responses.stream({ model: 'timed', input: 'time?' });
    const added: string[] = [];
    stream.on('response.output_item.added', (event) => added.push(event.item.type));
    const final = await stream.finalResponse();
    assert.deepEqual(added, ['mcp_call', 'message']);
    const [call, message] = final.output;
    assert.equal(call?.type, 'mcp_call');
    if (call?.type !== 'mcp_call') return;
    assert.equal(call.name, 'clock');
    assert.equal(call.server_label, 'rulechain');
    assert.equal(call.output, '12:00');
    assert.equal(call.status, 'completed');
    assert.equal(message?.type, 'message');
    assert.equal(final.output_text, 'It is 12:00.');
    assert.deepEqual(summary(last()), ['user:time?', 'assistant:clock', 'tool:12:00']);
  });

  it('client tools: a call comes back as a function_call item; its output continues via previous_response_id', async () => {
    upstream.script({ toolCalls: [{ id: 'call_w1', name: 'get_weather', arguments: { city: 'Oslo' } }] });
    const first = await client.responses.create({
      model: 'plain',
      input: 'weather in Oslo?',
      tools: [weatherTool],
    });
    assert.deepEqual(
      last().tools?.map((tool) => tool.function.name),
      ['get_weather'],
    );
    assert.equal(first.status, 'completed');
    const call = first.output.find((item) => item.type === 'function_call');
    assert.ok(call && call.type === 'function_call');
    assert.equal(call.call_id, 'call_w1');
    assert.equal(call.name, 'get_weather');
    assert.deepEqual(JSON.parse(call.arguments), { city: 'Oslo' });
    assert.match(call.id ?? '', /^fc_/);

    upstream.script({ text: 'Sunny in Oslo.' });
    const second = await client.responses.create({
      model: 'plain',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: 'call_w1', output: '{"sky":"sunny"}' }],
      tools: [weatherTool],
    });
    assert.equal(second.output_text, 'Sunny in Oslo.');
    assert.equal(second.previous_response_id, first.id);
    assert.deepEqual(summary(last()), [
      'user:weather in Oslo?',
      'assistant:get_weather',
      'tool:{"sky":"sunny"}',
    ]);
  });

  it('parallel client calls: two function_call items, answered together', async () => {
    upstream.script({
      toolCalls: [
        { id: 'call_p1', name: 'get_weather', arguments: { city: 'Oslo' } },
        { id: 'call_p2', name: 'get_weather', arguments: { city: 'Rome' } },
      ],
    });
    const first = await client.responses.create({
      model: 'plain',
      input: 'Oslo and Rome?',
      tools: [weatherTool],
    });
    const calls = first.output.filter((item) => item.type === 'function_call');
    assert.deepEqual(
      calls.map((call) => call.type === 'function_call' && call.call_id),
      ['call_p1', 'call_p2'],
    );
    upstream.script({ text: 'Both sunny.' });
    const second = await client.responses.create({
      model: 'plain',
      previous_response_id: first.id,
      input: [
        { type: 'function_call_output', call_id: 'call_p1', output: 'sunny' },
        { type: 'function_call_output', call_id: 'call_p2', output: 'sunny too' },
      ],
    });
    assert.equal(second.output_text, 'Both sunny.');
    assert.deepEqual(summary(last()).slice(-3), [
      'assistant:get_weather,get_weather',
      'tool:sunny',
      'tool:sunny too',
    ]);
    await assert.rejects(
      client.responses.create({
        model: 'plain',
        previous_response_id: second.id,
        input: [{ type: 'function_call_output', call_id: 'call_p1', output: 'again' }],
      }),
      OpenAI.BadRequestError,
      'an output that answers no open call is a 400',
    );
  });

  it('client tools, stateless: the client replays the items itself, function_call and function_call_output', async () => {
    upstream.script({ toolCalls: [{ id: 'call_s1', name: 'get_weather', arguments: { city: 'Rome' } }] });
    const stream = client.responses.stream({
      model: 'plain',
      input: 'Rome?',
      tools: [weatherTool],
      store: false,
    });
    const argumentDeltas: string[] = [];
    stream.on('response.function_call_arguments.delta', (event) => argumentDeltas.push(event.delta));
    const first = await stream.finalResponse();
    assert.equal(argumentDeltas.join(''), '{"city":"Rome"}');
    const call = first.output.find((item) => item.type === 'function_call');
    assert.ok(call?.type === 'function_call');
    await assert.rejects(
      client.responses.retrieve(first.id),
      OpenAI.NotFoundError,
      'store: false is not kept',
    );

    upstream.script({ text: 'Rome is sunny.' });
    const second = await client.responses.create({
      model: 'plain',
      store: false,
      input: [
        { role: 'user', content: 'Rome?' },
        call,
        { type: 'function_call_output', call_id: call.call_id, output: 'sunny' },
      ],
      tools: [weatherTool],
    });
    assert.equal(second.output_text, 'Rome is sunny.');
    assert.deepEqual(summary(last()), ['user:Rome?', 'assistant:get_weather', 'tool:sunny']);
  });

  it('parse: text.format json_schema reaches the model, and the SDK parses the answer', async () => {
    const Weather = z.object({ city: z.string(), celsius: z.number() });
    upstream.script({ text: '{"city":"Oslo","celsius":21}' });
    const parsed = await client.responses.parse({
      model: 'plain',
      input: 'weather as JSON',
      text: { format: zodTextFormat(Weather, 'weather') },
    });
    assert.deepEqual(parsed.output_parsed, { city: 'Oslo', celsius: 21 });
    const format = last()['response_format'] as {
      type: string;
      json_schema: { name: string; strict: boolean };
    };
    assert.equal(format.type, 'json_schema');
    assert.equal(format.json_schema.name, 'weather');
    assert.equal(format.json_schema.strict, true);
  });

  it('previous_response_id continues the conversation, and a second answer to the same response forks it', async () => {
    upstream.script({ text: 'Hi Bob.' });
    const first = await client.responses.create({ model: 'plain', input: 'I am Bob.' });
    upstream.script({ text: 'You are Bob.' });
    const second = await client.responses.create({
      model: 'plain',
      input: 'Who am I?',
      previous_response_id: first.id,
    });
    assert.deepEqual(summary(last()), ['user:I am Bob.', 'assistant:Hi Bob.', 'user:Who am I?']);
    upstream.script({ text: 'Still Bob.' });
    await client.responses.create({ model: 'plain', input: 'And now?', previous_response_id: second.id });
    assert.deepEqual(summary(last()), [
      'user:I am Bob.',
      'assistant:Hi Bob.',
      'user:Who am I?',
      'assistant:You are Bob.',
      'user:And now?',
    ]);
    // A fork from the first response does not see the turns that followed it.
    upstream.script({ text: 'Bob, again.' });
    const fork = await client.responses.create({
      model: 'plain',
      input: 'Again?',
      previous_response_id: first.id,
    });
    assert.deepEqual(summary(last()), ['user:I am Bob.', 'assistant:Hi Bob.', 'user:Again?']);
    upstream.script({ text: 'ok' });
    await client.responses.create({ model: 'plain', input: 'More?', previous_response_id: fork.id });
    assert.deepEqual(summary(last()), [
      'user:I am Bob.',
      'assistant:Hi Bob.',
      'user:Again?',
      'assistant:Bob, again.',
      'user:More?',
    ]);
  });

  it('conversation names a session, shared with the chat endpoint sessionId of the same name', async () => {
    upstream.script({ text: 'Noted.' });
    const first = await client.responses.create({
      model: 'plain',
      input: 'Remember 42.',
      conversation: 'conv-42',
    });
    assert.deepEqual(first.conversation, { id: 'conv-42' });
    upstream.script({ text: '42.' });
    await client.chat.completions.create({
      model: 'plain',
      messages: [{ role: 'user', content: 'What number?' }],
      // @ts-expect-error sessionId is this service's extension of the request
      sessionId: 'conv-42',
    });
    assert.deepEqual(summary(last()), ['user:Remember 42.', 'assistant:Noted.', 'user:What number?']);
  });

  it('instructions are a system message for this response only; parameters reach the model', async () => {
    upstream.script({ text: 'Arr.' });
    const first = await client.responses.create({
      model: 'plain',
      instructions: 'Talk like a pirate.',
      input: 'hello',
      temperature: 0.3,
      top_p: 0.5,
      max_output_tokens: 99,
      metadata: { ticket: 'T-1' },
    });
    const sent = last();
    assert.deepEqual(
      sent.messages.filter((message) => message.role === 'system').map((message) => message.content),
      ['You are plain.', 'Talk like a pirate.'],
    );
    assert.equal(sent['temperature'], 0.3);
    assert.equal(sent['top_p'], 0.5);
    assert.equal(sent['max_tokens'] ?? sent['max_completion_tokens'], 99);
    assert.equal(first.instructions, 'Talk like a pirate.');
    assert.deepEqual(first.metadata, { ticket: 'T-1' });
    assert.equal(first.temperature, 0.3);
    assert.equal(first.max_output_tokens, 99);

    upstream.script({ text: 'Hello.' });
    await client.responses.create({ model: 'plain', input: 'again', previous_response_id: first.id });
    assert.deepEqual(
      last()
        .messages.filter((message) => message.role === 'system')
        .map((message) => message.content),
      ['You are plain.'],
      'instructions are not carried over',
    );
  });

  it('tool_choice and parallel_tool_calls reach the model in its own shape', async () => {
    upstream.script({ toolCalls: [{ id: 'call_f1', name: 'get_weather', arguments: { city: 'Paris' } }] });
    await client.responses.create({
      model: 'plain',
      input: 'Paris?',
      tools: [weatherTool],
      tool_choice: { type: 'function', name: 'get_weather' },
      parallel_tool_calls: false,
    });
    assert.deepEqual(last()['tool_choice'], { type: 'function', function: { name: 'get_weather' } });
    assert.equal(last()['parallel_tool_calls'], false);
  });

  it('messages with image parts reach a vision model; system and assistant items are history', async () => {
    upstream.script({ text: 'A red dot.' });
    const picture = 'data:image/png;base64,iVBORw0KGgo=';
    await client.responses.create({
      model: 'plain',
      input: [
        { type: 'message', role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Earlier question' },
        { role: 'assistant', content: 'Earlier answer' },
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'What is this?' },
            { type: 'input_image', image_url: picture, detail: 'auto' },
          ],
        },
      ],
    });
    const sent = last().messages;
    const user = sent.at(-1) as {
      content: Array<{ type: string; text?: string; image_url?: { url: string } }>;
    };
    assert.deepEqual(
      user.content.map((part) => part.text ?? part.image_url?.url),
      ['What is this?', picture],
    );
    assert.deepEqual(summary(last()).slice(0, 2), ['user:Earlier question', 'assistant:Earlier answer']);
    assert.ok(sent.some((message) => message.role === 'system' && message.content === 'Be brief.'));
  });

  it('the /v1 alias serves the same API to a client whose base URL ends in /v1', async () => {
    const v1 = new OpenAI({ baseURL: `${t.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    upstream.script({ text: 'Via v1.' });
    const response = await v1.responses.create({ model: 'plain', input: 'hi' });
    assert.equal(response.output_text, 'Via v1.');
    assert.equal((await client.responses.retrieve(response.id)).output_text, 'Via v1.');
  });

  it('delete removes a stored response; a second delete or read is a 404', async () => {
    upstream.script({ text: 'bye' });
    const response = await client.responses.create({ model: 'plain', input: 'hi' });
    const deleted = (await client.responses.delete(response.id)) as unknown;
    assert.deepEqual(deleted, { id: response.id, object: 'response', deleted: true });
    await assert.rejects(client.responses.retrieve(response.id), OpenAI.NotFoundError);
    await assert.rejects(client.responses.delete(response.id), OpenAI.NotFoundError);
    await assert.rejects(client.responses.inputItems.list(response.id), OpenAI.NotFoundError);
  });
});
