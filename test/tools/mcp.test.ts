import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { AppError } from '../../src/core/errors.ts';
import { McpConnection, splitCommandLine } from '../../src/tools/mcp.ts';
import { startEchoMcpHttpServer } from '../fakes/mcp-echo-server.ts';
import type { ToolContext } from '../../src/tools/types.ts';

const SERVER_SCRIPT = fileURLToPath(new URL('../fakes/mcp-echo-server.ts', import.meta.url));

const context = (signal = new AbortController().signal): ToolContext => ({
  signal,
  agentId: 'test',
  workspaceDir: '/nonexistent',
});

async function exerciseTools(connection: McpConnection): Promise<void> {
  const tools = await connection.tools();
  assert.deepEqual(
    tools.map((tool) => tool.name),
    ['echo', 'add', 'fail', 'slow'],
  );
  const echo = tools.find((tool) => tool.name === 'echo');
  const add = tools.find((tool) => tool.name === 'add');
  const fail = tools.find((tool) => tool.name === 'fail');
  assert.ok(echo && add && fail);
  assert.equal(echo.toolType, 'mcp');
  assert.equal(echo.description, 'Returns the given text');
  assert.equal(echo.parameters.type, 'object');
  assert.deepEqual(Object.keys(echo.parameters.properties as object), ['text']);
  assert.equal(await echo.execute({ text: 'hello' }, context()), 'hello');
  assert.equal(await add.execute({ a: 2, b: 40 }, context()), '42');
  assert.equal(await fail.execute({}, context()), 'error: something broke');
  // The connection is shared: listing again gives the cached tools and calls still work.
  assert.equal(await connection.tools(), tools);
  assert.equal(await echo.execute({ text: 'again' }, context()), 'again');
}

describe('MCP connection over stdio', () => {
  let connection: McpConnection;
  before(() => {
    connection = new McpConnection({
      server: [process.execPath, '--import', 'tsx', SERVER_SCRIPT],
      timeoutMs: 500,
    });
  });
  after(() => connection.close());

  it('lists the server tools and calls them', async () => {
    await exerciseTools(connection);
  });

  it('times out a slow call', async () => {
    const slow = (await connection.tools()).find((tool) => tool.name === 'slow');
    await assert.rejects(
      slow?.execute({ ms: 5_000 }, context()) ?? Promise.resolve(),
      (error: unknown) =>
        error instanceof AppError &&
        error.kind === 'timeout' &&
        /MCP tool "slow" timed out after 500 ms/.test(error.message),
    );
  });

  it('stops a call when it is aborted', async () => {
    const slow = (await connection.tools()).find((tool) => tool.name === 'slow');
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('client went away')), 50);
    await assert.rejects(
      slow?.execute({ ms: 5_000 }, context(controller.signal)) ?? Promise.resolve(),
      /client went away/,
    );
  });

  it('accepts the server as one command line', async () => {
    const fromString = new McpConnection({ server: `"${process.execPath}" --import tsx "${SERVER_SCRIPT}"` });
    try {
      const [echo] = await fromString.tools();
      assert.equal(await echo?.execute({ text: 'quoted' }, context()), 'quoted');
      assert.equal(fromString.label, 'node');
    } finally {
      await fromString.close();
    }
  });

  it('reports a server that cannot start', async () => {
    const broken = new McpConnection({ server: '/nonexistent/mcp-server --token=SECRET' });
    await assert.rejects(
      broken.tools(),
      (error: unknown) =>
        error instanceof AppError &&
        error.kind === 'unavailable' &&
        error.message.startsWith('MCP server mcp-server could not be reached') &&
        !error.message.includes('SECRET'),
    );
  });
});

describe('MCP connection over streamable HTTP', () => {
  let server: { url: string; close(): Promise<void> };
  let connection: McpConnection;
  before(async () => {
    server = await startEchoMcpHttpServer();
    connection = new McpConnection({ server: server.url });
  });
  after(async () => {
    await connection.close();
    await server.close();
  });

  it('lists the server tools and calls them', async () => {
    await exerciseTools(connection);
  });

  it('refuses calls after close', async () => {
    const closing = new McpConnection({ server: server.url });
    await closing.tools();
    await closing.close();
    await assert.rejects(closing.tools({ refresh: true }), /is closed/);
  });
});

describe('splitCommandLine', () => {
  it('splits on spaces and honours quotes and backslashes', () => {
    assert.deepEqual(splitCommandLine(`npx -y "@scope/server" --root 'my dir' a\\ b ""`), [
      'npx',
      '-y',
      '@scope/server',
      '--root',
      'my dir',
      'a b',
      '',
    ]);
  });
});
