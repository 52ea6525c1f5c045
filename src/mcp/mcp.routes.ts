// /api/v1/mcp: the agents as an MCP server over streamable HTTP (POST messages, GET the session's
// event stream, DELETE to end a session). Mounted thinly: after fastify has parsed the body and the
// auth hook has resolved the caller, the raw request and response go to the SDK's transport.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { McpHttpServer } from './mcp-server.ts';

const description =
  'Model Context Protocol (streamable HTTP). Each agent the caller may use is a tool {message, sessionId?}; rule chains marked additionalInfo.mcp are tools with their inputSchema. JSON-RPC 2.0 messages in, JSON or an event stream out.';

export function registerMcpRoutes(app: FastifyInstance, mcp: McpHttpServer): void {
  const handler = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    reply.hijack();
    try {
      await mcp.handle(request.raw, reply.raw, request.body, request.principal);
    } catch (error) {
      request.log.error({ err: error }, 'MCP request failed');
      if (!reply.raw.headersSent)
        reply.raw
          .writeHead(500, { 'content-type': 'application/json' })
          .end(
            JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'internal error' }, id: null }),
          );
      else reply.raw.end();
    }
  };
  const schema = { tags: ['mcp'], description, response: { 200: z.unknown() } };
  app.post('/mcp', { config: { auth: 'chat' }, schema: { ...schema, body: z.unknown() } }, handler);
  app.get('/mcp', { config: { auth: 'chat' }, schema }, handler);
  app.delete('/mcp', { config: { auth: 'chat' }, schema }, handler);
}
