// OpenTelemetry traces end to end: a fake OTLP/HTTP collector on 127.0.0.1 receives the spans of a
// chat turn (invoke_agent, chat with the GenAI attributes, execute_tool, the chain and its nodes),
// the caller's traceparent is continued and one is sent to the model provider; no prompt or
// completion text leaves unless observability.capture_content is on.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  arrayValue?: { values: OtlpValue[] };
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Array<{ key: string; value: OtlpValue }>;
}

function attribute(span: OtlpSpan, key: string): unknown {
  const found = span.attributes.find((entry) => entry.key === key)?.value;
  if (!found) return undefined;
  if (found.arrayValue) return found.arrayValue.values.map((value) => value.stringValue);
  if (found.intValue !== undefined) return Number(found.intValue);
  return found.stringValue ?? found.boolValue;
}

async function startCollector(): Promise<{
  url: string;
  spans: OtlpSpan[];
  bodies: string[];
  close(): Promise<void>;
}> {
  const spans: OtlpSpan[] = [];
  const bodies: string[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += String(chunk)));
    request.on('end', () => {
      bodies.push(body);
      if (request.url === '/v1/traces') {
        const parsed = JSON.parse(body) as {
          resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
        };
        for (const resource of parsed.resourceSpans)
          for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    spans,
    bodies,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function waitFor(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';

describe('OpenTelemetry traces', () => {
  let upstream: FakeUpstream;
  let collector: Awaited<ReturnType<typeof startCollector>>;
  let t: TestApp | undefined;
  before(async () => {
    upstream = await startFakeUpstream();
    collector = await startCollector();
  });
  after(async () => {
    await t?.close();
    await upstream.close();
    await collector.close();
  });

  const ask = (content: string) =>
    fetch(`${t?.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` },
      body: JSON.stringify({ model: 'main', messages: [{ role: 'user', content }] }),
    });

  it('exports invoke_agent, chat, execute_tool, chain and node spans in the caller trace, without content', async () => {
    t = await createTestApp({
      listen: true,
      config: { models: upstream.modelsConfig(), observability: { otlp_endpoint: collector.url } },
    });
    upstream.script(
      { toolCalls: [{ name: 'glob', arguments: { pattern: '*' } }] },
      { text: 'Secret completion text.' },
    );
    const response = await ask('Secret prompt text');
    assert.equal(response.status, 200);
    await response.json();
    await waitFor(
      () => collector.spans.some((span) => span.name.startsWith('invoke_agent')),
      'the turn span',
    );
    const spans = collector.spans;
    const turn = spans.find((span) => span.name === 'invoke_agent main') as OtlpSpan;
    assert.equal(turn.traceId, TRACE_ID, 'the incoming trace is continued');
    assert.equal(turn.parentSpanId, PARENT_ID);
    assert.equal(attribute(turn, 'gen_ai.operation.name'), 'invoke_agent');
    assert.equal(attribute(turn, 'gen_ai.agent.id'), 'main');
    const chats = spans.filter((span) => attribute(span, 'gen_ai.operation.name') === 'chat');
    assert.equal(chats.length, 2);
    for (const chat of chats) {
      assert.equal(chat.traceId, TRACE_ID);
      assert.equal(chat.parentSpanId, turn.spanId);
      assert.equal(attribute(chat, 'gen_ai.system'), 'fake');
      assert.equal(typeof attribute(chat, 'gen_ai.request.model'), 'string');
      assert.ok((attribute(chat, 'gen_ai.usage.input_tokens') as number) > 0);
      assert.ok((attribute(chat, 'gen_ai.usage.output_tokens') as number) > 0);
    }
    assert.deepEqual(attribute(chats[0] as OtlpSpan, 'gen_ai.response.finish_reasons'), ['tool_calls']);
    assert.deepEqual(attribute(chats[1] as OtlpSpan, 'gen_ai.response.finish_reasons'), ['stop']);
    const tool = spans.find((span) => span.name === 'execute_tool glob') as OtlpSpan;
    assert.equal(tool.parentSpanId, turn.spanId);
    assert.equal(attribute(tool, 'gen_ai.tool.name'), 'glob');
    const chain = spans.find((span) => span.name === 'invoke_workflow main') as OtlpSpan;
    assert.equal(chain.parentSpanId, turn.spanId);
    const nodes = spans.filter((span) => span.parentSpanId === chain.spanId);
    assert.ok(nodes.some((span) => attribute(span, 'agent_service.node.type') === 'ai/agent'));
    // The model provider got a traceparent of this trace (the chat span's).
    const sent = String(upstream.lastHeaders?.['traceparent']);
    assert.match(sent, new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`));
    assert.ok(chats.some((chat) => sent.includes(chat.spanId)));
    // No prompt or completion text in anything exported.
    assert.doesNotMatch(collector.bodies.join('\n'), /Secret prompt text|Secret completion text/);
    await t.close();
    t = undefined;
  });

  it('with capture_content on, the prompt and completion are exported', async () => {
    collector.spans.length = 0;
    t = await createTestApp({
      listen: true,
      config: {
        models: upstream.modelsConfig(),
        observability: { otlp_endpoint: `${collector.url}/v1/traces`, capture_content: true },
      },
    });
    upstream.script({ text: 'Visible completion.' });
    await (await ask('Visible prompt')).json();
    await waitFor(() => collector.spans.some((span) => span.name === 'invoke_agent main'), 'the turn span');
    const chat = collector.spans.find(
      (span) => attribute(span, 'gen_ai.operation.name') === 'chat',
    ) as OtlpSpan;
    assert.match(String(attribute(chat, 'gen_ai.input.messages')), /Visible prompt/);
    assert.match(String(attribute(chat, 'gen_ai.output.messages')), /Visible completion/);
  });
});
