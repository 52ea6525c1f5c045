import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { sleep } from '../../src/core/async.ts';

/**
 * A tiny MCP server for tests, with tools `echo` {text}, `add` {a, b}, `fail` {} (an isError
 * result) and `slow` {ms}. Run this file directly to serve it over stdio.
 */
export function createEchoMcpServer(): McpServer {
  const server = new McpServer({ name: 'echo', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Returns the given text', inputSchema: { text: z.string() } },
    ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  server.registerTool(
    'add',
    { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } },
    ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  server.registerTool('fail', { description: 'Always reports a failure' }, () => ({
    isError: true,
    content: [{ type: 'text', text: 'something broke' }],
  }));
  server.registerTool(
    'slow',
    { description: 'Waits the given number of milliseconds', inputSchema: { ms: z.number() } },
    async ({ ms }, extra) => {
      await sleep(ms, extra.signal);
      return { content: [{ type: 'text', text: `waited ${ms} ms` }] };
    },
  );
  return server;
}

/** Serves the echo server over streamable HTTP (stateless) at http://127.0.0.1:<port>/mcp. */
export async function startEchoMcpHttpServer(): Promise<{ url: string; close(): Promise<void> }> {
  const http = createServer((request, response) => {
    if (request.url !== '/mcp') {
      response.writeHead(404).end();
      return;
    }
    if (request.method !== 'POST') {
      response.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const server = createEchoMcpServer();
    const transport = new StreamableHTTPServerTransport({}); // no session id generator: stateless;
    response.once('close', () => {
      void transport.close();
      void server.close();
    });
    server
      .connect(transport)
      .then(() => transport.handleRequest(request, response))
      .catch(() => {
        if (!response.headersSent) response.writeHead(500).end();
      });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

export async function runEchoMcpStdio(): Promise<void> {
  await createEchoMcpServer().connect(new StdioServerTransport());
}

// Started as a program (node --import tsx test/fakes/mcp-echo-server.ts): serve over stdio.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runEchoMcpStdio();
}
