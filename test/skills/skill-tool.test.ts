// The `skill` built-in tool and the skills section of the system prompt, through a real agent turn.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { agentDefinition } from '../fakes/builders.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';

interface ToolEvent {
  type: string;
  toolCallName: string;
  content?: string;
}

describe('skill tool and prompt listing', () => {
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
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/agents',
      payload: agentDefinition('skilled', {
        systemPrompt: 'Be useful.',
        tools: [{ type: 'builtin', name: 'skill' }],
      }),
    });
    assert.equal(created.statusCode, 201, created.body);
  });
  after(async () => {
    await t.close();
    await upstream.close();
  });

  async function turn(): Promise<{ system: string; tools: ToolEvent[] }> {
    const before = upstream.requests.length;
    const response = await fetch(`${t.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-stream-protocol': 'agui' },
      body: JSON.stringify({ model: 'skilled', stream: true, messages: [{ role: 'user', content: 'go' }] }),
    });
    const frames = (await response.text()).split('\n\n').filter((frame) => frame.startsWith('data: {'));
    const chunks = frames.map((frame) => JSON.parse(frame.slice(6)));
    const sent = upstream.requests[before] as { messages: Array<{ role: string; content: string }> };
    return {
      system: sent.messages.find((message) => message.role === 'system')?.content ?? '',
      tools: chunks.flatMap((chunk) => chunk.choices?.[0]?.delta?.tool_calls ?? []),
    };
  }

  it('is listed by GET /tools and /tools/forms', async () => {
    const tools = (await t.app.inject({ method: 'GET', url: '/api/v1/tools' })).json();
    const skill = tools.find((tool: { name: string }) => tool.name === 'skill');
    assert.equal(skill?.type, 'builtin');
    assert.deepEqual(skill?.parameters.required, ['name']);
    const forms = (await t.app.inject({ method: 'GET', url: '/api/v1/tools/forms' })).json();
    assert.ok(forms.some((form: { name: string }) => form.name === 'skill'));
  });

  it('lists no skills section while the agent has none', async () => {
    upstream.script({ text: 'ok' });
    const { system } = await turn();
    assert.equal(system, 'Be useful.');
  });

  it('lists local and global skills (local shadowing) and returns a skill text on demand', async () => {
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/skills',
      payload: { name: 'greet', description: 'global greeting', content: 'Say hello globally.' },
    });
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/skills',
      payload: { name: 'shared', description: 'global only', content: 'Shared text.' },
    });
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/agents/skilled/skills',
      payload: { name: 'greet', description: 'local greeting', content: 'Say hello locally.' },
    });
    // The listing is cached for a second per node.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    upstream.script(
      { toolCalls: [{ name: 'skill', arguments: { name: 'greet' } }] },
      { toolCalls: [{ name: 'skill', arguments: { name: 'shared' } }] },
      { toolCalls: [{ name: 'skill', arguments: { name: 'missing' } }] },
      { text: 'done' },
    );
    const { system, tools } = await turn();
    assert.match(
      system,
      /## Skills\n\n.*call the `skill` tool.*\n\n- greet: local greeting\n- shared: global only$/,
    );
    const results = tools
      .filter((tool) => tool.type === 'TOOL_CALL_RESULT')
      .map((tool) => tool.content ?? '');
    assert.equal(results.length, 3);
    assert.match(
      results[0] ?? '',
      /^---\nname: greet\ndescription: local greeting\n---\n\nSay hello locally\.$/,
    );
    assert.match(results[1] ?? '', /Shared text\.$/);
    assert.equal(results[2], 'error: unknown skill "missing"; available: greet, shared');
  });
});
