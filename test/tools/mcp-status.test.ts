// An MCP server that cannot start is never silently ignored: the agent's status shows it, the log says
// why, and neither shows the server's secrets.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { afterEach, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { agentDefinition } from '../fakes/builders.ts';

const TOKEN = 'mcp-secret-token-4411';

/** A port on 127.0.0.1 that nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address !== 'object') throw new Error('no port');
  return address.port;
}

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('MCP servers that cannot start', () => {
  let t: TestApp;
  afterEach(() => t?.close());

  it('shows each failure in the agent status with the reason, and logs it once, secrets hidden', async () => {
    const warnings: string[] = [];
    const logger = {
      info: () => undefined,
      warn: (_details: object, message: string) => warnings.push(message),
    };
    t = await createTestApp({ services: { logger } });
    const port = await closedPort();
    const crash = `console.error('starting with token=' + process.env.API_TOKEN); process.exit(3)`;
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/agents',
      payload: agentDefinition('toolbox', {
        tools: [
          {
            type: 'mcp',
            name: 'crashy',
            config: { server: [process.execPath, '-e', crash], env: { API_TOKEN: TOKEN } },
          },
          { type: 'mcp', name: 'remote', config: { server: `http://127.0.0.1:${port}/mcp` } },
        ],
      }),
    });
    assert.equal(created.statusCode, 201, created.body);

    const view = await waitFor(
      async () => (await t.app.inject({ url: '/api/v1/agents/toolbox' })).json(),
      (body) => (body.status.problems ?? []).length === 2,
    );
    const [crashy, remote] = view.status.problems as string[];
    assert.match(
      crashy!,
      /^node "agent": MCP tool "crashy" is unavailable: .+\(stderr: starting with token=\*\*\*\)$/,
    );
    assert.match(
      remote!,
      new RegExp(
        `^node "agent": MCP tool "remote" is unavailable: MCP server http://127\\.0\\.0\\.1:${port}/mcp could not be reached`,
      ),
    );
    assert.equal(view.status.loaded, true, 'the agent still serves, without those tools');

    await waitFor(
      async () => warnings,
      (list) => list.length === 2,
    );
    assert.ok(warnings.every((line) => line.startsWith('agent "toolbox": MCP tool ')));
    const everything = JSON.stringify(view) + warnings.join('\n');
    assert.ok(!everything.includes(TOKEN), 'the env value is never shown');

    // A turn tries again; the failure stays reported but is not logged again.
    const chat = await t.app.inject({
      method: 'POST',
      url: '/api/v1/chat/completions',
      payload: { model: 'toolbox', messages: [{ role: 'user', content: 'hello' }] },
    });
    assert.equal(chat.statusCode, 200, chat.body);
    assert.equal(warnings.length, 2);
  });

  it('refuses an mcp tool without a server, or with env values that are not text; says "an agent tool"', async () => {
    t = await createTestApp();
    for (const [tool, pattern] of [
      [{ type: 'mcp', name: 'm', config: {} }, /an mcp tool needs config\.server/],
      [{ type: 'mcp', name: 'm', config: { server: 'x', env: { A: 1 } } }, /mcp config\.env\.A/],
      [{ type: 'agent', name: 'helper' }, /tools: an agent tool needs targetId/],
      [{ type: 'rulechain', name: 'chain' }, /tools: a rulechain tool needs targetId/],
    ] as const) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v1/agents',
        payload: agentDefinition('bad', { tools: [tool] }),
      });
      assert.equal(response.statusCode, 400, response.body);
      assert.match(response.json().error, pattern);
    }
  });
});
