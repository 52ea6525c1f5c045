// Tool calls of every type through the agent node, seen with the AG-UI header; the system prompt
// composition; the tool loop's limits.
import assert from 'node:assert/strict';
import { symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import {
  agentDefinition,
  chainDefinition,
  type AgentOptions,
  type ToolSpec,
} from '../fakes/builders.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';

const MCP_SERVER = join(import.meta.dirname, '..', 'fakes', 'mcp-echo-server.ts');

interface ToolEvent {
  type: string;
  toolCallName: string;
  toolType: string;
  content?: string;
  arguments?: string;
}

const agent = (id: string, tools: ToolSpec[], options: AgentOptions = {}) =>
  agentDefinition(id, { systemPrompt: 'You are ${ruleChain.id}. Motto: ${vars.motto}.', tools, ...options });

describe('agent tools', () => {
  let upstream: FakeUpstream;
  let t: TestApp;

  before(async () => {
    upstream = await startFakeUpstream();
    t = await createTestApp({
      listen: true,
      config: {
        models: upstream.modelsConfig(),
      },
    });
  });
  after(async () => {
    await t.close();
    await upstream.close();
  });

  async function run(model: string, content: string): Promise<{ text: string; tools: ToolEvent[] }> {
    const response = await fetch(`${t.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-stream-protocol': 'agui' },
      body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content }] }),
    });
    const frames = (await response.text()).split('\n\n').filter((f) => f.startsWith('data: {'));
    const chunks = frames.map((f) => JSON.parse(f.slice(6)));
    const error = chunks.find((c) => c.error);
    assert.equal(error, undefined, JSON.stringify(error));
    return {
      text: chunks.map((c) => c.choices?.[0]?.delta?.content ?? '').join(''),
      tools: chunks.flatMap((c) => c.choices?.[0]?.delta?.tool_calls ?? []),
    };
  }

  it('a rulechain tool runs its chain with the arguments and offers its inputSchema', async () => {
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/rules',
      payload: chainDefinition(
        'weather',
        [
          {
            id: 't',
            type: 'jsTransform',
            configuration: {
              jsScript: 'return {msg: {city: msg.city, sky: "sunny"}, metadata: metadata, msgType: msgType};',
            },
          },
        ],
        [],
        {
          additionalInfo: {
            description: 'Gets the weather',
            inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          },
        },
      ),
    });
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/agents',
      payload: agent('forecaster', [{ type: 'rulechain', targetId: 'weather' }]),
    });
    upstream.script(
      { toolCalls: [{ name: 'weather', arguments: { city: 'Oslo' } }] },
      { text: 'It is sunny.' },
    );
    const before = upstream.requests.length;
    const result = await run('forecaster', 'weather in Oslo?');
    assert.equal(result.text, 'It is sunny.');
    assert.deepEqual(
      result.tools.map((e) => [e.type, e.toolCallName, e.toolType]),
      [
        ['TOOL_CALL_START', 'weather', 'rulechain'],
        ['TOOL_CALL_RESULT', 'weather', 'rulechain'],
      ],
    );
    assert.deepEqual(JSON.parse(result.tools[1]?.content ?? ''), { city: 'Oslo', sky: 'sunny' });
    const offered = upstream.requests[before] as {
      tools: Array<{ function: { name: string; description: string; parameters: unknown } }>;
    };
    assert.deepEqual(offered.tools[0]?.function, {
      name: 'weather',
      description: 'Gets the weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    });
  });

  it('an agent tool runs the sub-agent without shared history and reports toolType subagent', async () => {
    await t.app.inject({ method: 'POST', url: '/api/v1/agents', payload: agent('helper', []) });
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/agents',
      payload: agent('boss', [{ type: 'agent', targetId: 'helper', name: 'ask_helper' }]),
    });
    upstream.script(
      { toolCalls: [{ name: 'ask_helper', arguments: { input: 'summarise X' } }] },
      { text: 'helper says hi' },
      { text: 'Done: helper says hi' },
    );
    const before = upstream.requests.length;
    const result = await run('boss', 'delegate please');
    assert.equal(result.text, 'Done: helper says hi', "the sub-agent text is not streamed as the caller's");
    assert.deepEqual(
      result.tools.map((e) => [e.type, e.toolType]),
      [
        ['TOOL_CALL_START', 'subagent'],
        ['TOOL_CALL_RESULT', 'subagent'],
      ],
    );
    assert.equal(result.tools[1]?.content, 'helper says hi');
    const helperCall = upstream.requests[before + 1] as {
      messages: Array<{ role: string; content: string }>;
    };
    assert.deepEqual(
      helperCall.messages.filter((m) => m.role !== 'system').map((m) => m.content),
      ['summarise X'],
    );
  });

  it('an mcp tool calls the tools of an MCP server over stdio', async () => {
    const server = [process.execPath, '--import', 'tsx', MCP_SERVER];
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/agents',
      payload: agent('mcp-user', [{ type: 'mcp', config: { server } }]),
    });
    upstream.script({ toolCalls: [{ name: 'add', arguments: { a: 2, b: 40 } }] }, { text: 'The sum is 42.' });
    const result = await run('mcp-user', 'add 2 and 40');
    assert.equal(result.text, 'The sum is 42.');
    assert.deepEqual(
      result.tools.map((e) => [e.type, e.toolCallName, e.toolType, e.content ?? e.arguments]),
      [
        ['TOOL_CALL_START', 'add', 'mcp', '{"a":2,"b":40}'],
        ['TOOL_CALL_RESULT', 'add', 'mcp', '42'],
      ],
    );
  });

  it('file tools refuse paths outside the workspace; bash is off unless enabled', async () => {
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/agents',
      payload: agent('careful', [{ type: 'builtin', name: 'read' }]),
    });
    upstream.script(
      {
        toolCalls: [
          { name: 'read', arguments: { path: '../../../config.yaml' } },
          { name: 'bash', arguments: { command: 'ls' } },
        ],
      },
      { text: 'ok' },
    );
    const result = await run('careful', 'read the config');
    const results = result.tools.filter((e) => e.type === 'TOOL_CALL_RESULT');
    assert.match(results[0]?.content ?? '', /path outside workspace/);
    assert.equal(results[1]?.content, 'error: there is no tool named "bash"');
  });

  it('the same call repeated is stopped with a note; maxStep ends the loop', async () => {
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/agents',
      payload: agent('looper', [{ type: 'builtin', name: 'glob' }], { maxStep: 5 }),
    });
    const call = { toolCalls: [{ name: 'glob', arguments: { pattern: '*' } }] };
    upstream.script(call, call, call, call, call);
    const result = await run('looper', 'loop');
    const results = result.tools.filter((e) => e.type === 'TOOL_CALL_RESULT');
    assert.equal(results.length, 5);
    assert.match(results[3]?.content ?? '', /already called 3 times with these same arguments/);
    assert.equal(result.text, '[stopped after 5 steps without a final answer]');
  });

  it('the system prompt renders its templates and composes the workspace files', async () => {
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/agents',
      payload: agent('persona', [], { vars: { motto: 'be brief' } }),
    });
    const workspace = await t.services.workspace('persona');
    await writeFile(join(workspace, 'SOUL.md'), 'You love tea.');
    await writeFile(join(workspace, 'MEMORY.md'), 'The user is called Ada.');
    upstream.script({ text: 'hello' });
    const before = upstream.requests.length;
    await run('persona', 'hi');
    const system = (upstream.requests[before] as { messages: Array<{ role: string; content: string }> })
      .messages[0];
    assert.equal(system?.role, 'system');
    assert.match(system?.content ?? '', /^You are persona\. Motto: be brief\./);
    assert.match(system?.content ?? '', /## SOUL\.md\n\nYou love tea\./);
    assert.match(system?.content ?? '', /## MEMORY\.md\n\nThe user is called Ada\./);
    assert.ok((system?.content ?? '').indexOf('SOUL.md') < (system?.content ?? '').indexOf('MEMORY.md'));
  });

  it('a workspace prompt file that links outside the workspace is not read', async () => {
    await t.app.inject({ method: 'POST', url: '/api/v1/agents', payload: agent('linked', []) });
    const workspace = await t.services.workspace('linked');
    await symlink(t.configPath, join(workspace, 'USER.md'));
    upstream.script({ text: 'hello' });
    const before = upstream.requests.length;
    await run('linked', 'hi');
    const system = (upstream.requests[before] as { messages: Array<{ role: string; content: string }> })
      .messages[0];
    assert.doesNotMatch(system?.content ?? '', /USER\.md|models:|base_url/);
  });

  it('temperature and max_tokens from the request are passed through', async () => {
    upstream.script({ text: 'ok' });
    const before = upstream.requests.length;
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/chat/completions',
      payload: {
        model: 'main',
        temperature: 0.2,
        max_tokens: 77,
        messages: [{ role: 'user', content: 'hi' }],
      },
    });
    const sent = upstream.requests[before] as Record<string, unknown>;
    assert.equal(sent['temperature'], 0.2);
    assert.ok(sent['max_tokens'] === 77 || sent['max_completion_tokens'] === 77);
  });
});

describe('tools, forms and the agent template', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('GET /tools lists built-ins, rule chains and agents with parameter schemas', async () => {
    const tools = (await t.app.inject({ method: 'GET', url: '/api/v1/tools' })).json();
    const read = tools.find((tool: { name: string }) => tool.name === 'read');
    assert.equal(read.type, 'builtin');
    assert.equal(read.parameters.type, 'object');
    assert.ok(
      tools.some((tool: { name: string; type: string }) => tool.name === 'main' && tool.type === 'subagent'),
    );
    for (const name of ['write', 'edit', 'grep', 'glob', 'bash', 'web_fetch'])
      assert.ok(
        tools.some((tool: { name: string }) => tool.name === name),
        name,
      );
  });

  it('GET /tools/forms describes each built-in tool configuration', async () => {
    const forms = (await t.app.inject({ method: 'GET', url: '/api/v1/tools/forms' })).json();
    const bash = forms.find((form: { name: string }) => form.name === 'bash');
    const enabled = bash.fields.find((field: { name: string }) => field.name === 'enabled');
    assert.equal(enabled.defaultValue ?? enabled.default, false);
  });

  it('GET /agent-template is accepted by POST /agents as is', async () => {
    const template = (await t.app.inject({ method: 'GET', url: '/api/v1/agent-template' })).json();
    const created = await t.app.inject({ method: 'POST', url: '/api/v1/agents', payload: template });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.json().status.loaded, true);
  });
});
