// The least an OpenAI gateway can do, in plain node:http: read a chat request, send it upstream as a
// streamed call (keep-alive), decode the event stream and answer one chat completion. No framework,
// no validation, no logging, no agent. It is the ceiling any Node service reaches on this machine
// when each request costs an upstream call, and what the service's figure is compared against.
// The upstream base URL (ending in /v1) is argv[2]. Prints "listening on <url>" on stderr.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const upstream = new URL(`${process.argv[2] ?? ''}/chat/completions`);
const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });

function callUpstream(body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      upstream,
      { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (piece: string) => (text += piece));
        response.on('end', () => resolve(text));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

const server = http.createServer((request, response) => {
  let raw = '';
  request.setEncoding('utf8');
  request.on('data', (piece: string) => (raw += piece));
  request.on('end', () => {
    const asked = JSON.parse(raw) as { model: string; messages: unknown[] };
    const body = JSON.stringify({
      model: asked.model,
      messages: asked.messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    callUpstream(body).then(
      (events) => {
        let content = '';
        let usage: unknown = null;
        for (const line of events.split('\n')) {
          if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
          const chunk = JSON.parse(line.slice(6)) as {
            choices?: Array<{ delta?: { content?: string } }>;
            usage?: unknown;
          };
          content += chunk.choices?.[0]?.delta?.content ?? '';
          if (chunk.usage) usage = chunk.usage;
        }
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            id: 'chatcmpl-proxy',
            object: 'chat.completion',
            created: Math.floor(Date.now() / 1000),
            model: asked.model,
            choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
            usage,
          }),
        );
      },
      () => {
        response.writeHead(502, { 'content-type': 'application/json' });
        response.end('{"error":"upstream failed"}');
      },
    );
  });
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stderr.write(`bare proxy listening on http://127.0.0.1:${port}\n`);
});
process.once('SIGTERM', () => {
  server.close();
  agent.destroy();
  process.exit(0);
});
