// What MCP and A2A add over chat completions for the same turn: one client per path, back-to-back
// requests over one kept-alive connection to `agent-service serve` (agent `bench` on the fake
// upstream), in interleaved rounds. An MCP tools/call without sessionId (in an MCP session, and
// stateless) is compared with a stateless chat completion; an A2A SendMessage, whose task always
// belongs to a context and so to a stored session, with a chat completion with a new sessionId.
// Goal: each adds at most 2 ms at the median.
// Prints one JSON line: {"bench":"agent-protocols", ...}.
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { BENCH_AGENT, codeVersion, postJson, progress, round, startHelper, startService } from './_shared.ts';

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 4);
const ROUND_S = Number(process.env['BENCH_ROUND_S'] ?? 1);

interface Target {
  name: string;
  url: URL;
  headers: Record<string, string>;
  body: () => string;
  /** Checks one answer (status and body), so a failing path cannot look fast. */
  check: (status: number, body: string) => boolean;
}

function post(agent: Agent, target: Target): Promise<{ status: number; body: string }> {
  const payload = target.body();
  return new Promise((resolve, reject) => {
    const outgoing = request(
      target.url,
      {
        agent,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
          ...target.headers,
        },
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.once('end', () => resolve({ status: response.statusCode ?? 0, body }));
        response.once('error', reject);
      },
    );
    outgoing.setTimeout(10_000, () => outgoing.destroy(new Error('no answer within 10 s')));
    outgoing.once('error', reject);
    outgoing.end(payload);
  });
}

const upstream = await startHelper('_fake-upstream-process.ts');
try {
  const service = await startService({
    models: {
      default_provider: 'fake',
      providers: { fake: { base_url: upstream.url, model: 'fake-model' } },
    },
  });
  try {
    await postJson(`${service.url}/api/v1/agents`, BENCH_AGENT);
    const base = new URL(service.url);
    const mcpHeaders = {
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    };
    const toolsCall = (): string =>
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'bench', arguments: { message: 'hi' } },
      });
    // An MCP session as desktop clients open one: initialize, then initialized.
    const setup = new Agent({ keepAlive: true, maxSockets: 1 });
    const mcpUrl = new URL('/api/v1/mcp', base);
    const opened = await new Promise<string>((resolve, reject) => {
      const payload = JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'bench', version: '1' },
        },
      });
      const outgoing = request(
        mcpUrl,
        { agent: setup, method: 'POST', headers: { 'content-type': 'application/json', ...mcpHeaders } },
        (response) => {
          response.resume();
          const id = response.headers['mcp-session-id'];
          response.once('end', () =>
            typeof id === 'string' ? resolve(id) : reject(new Error('no Mcp-Session-Id')),
          );
        },
      );
      outgoing.once('error', reject);
      outgoing.end(payload);
    });
    await post(setup, {
      name: 'initialized',
      url: mcpUrl,
      headers: { ...mcpHeaders, 'mcp-session-id': opened },
      body: () => JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      check: () => true,
    });
    setup.destroy();

    const answered = (body: string): boolean => body.includes('Hello from the fake upstream');
    const targets: Target[] = [
      {
        name: 'chat',
        url: new URL('/api/v1/chat/completions', base),
        headers: {},
        body: () => JSON.stringify({ model: 'bench', messages: [{ role: 'user', content: 'hi' }] }),
        check: (status, body) => status === 200 && answered(body),
      },
      {
        name: 'chatSession',
        url: new URL('/api/v1/chat/completions', base),
        headers: {},
        body: () =>
          JSON.stringify({
            model: 'bench',
            sessionId: randomUUID(),
            messages: [{ role: 'user', content: 'hi' }],
          }),
        check: (status, body) => status === 200 && answered(body),
      },
      {
        name: 'mcpSession',
        url: mcpUrl,
        headers: { ...mcpHeaders, 'mcp-session-id': opened },
        body: toolsCall,
        check: (status, body) => status === 200 && answered(body) && !body.includes('"isError":true'),
      },
      {
        name: 'mcpStateless',
        url: mcpUrl,
        headers: mcpHeaders,
        body: toolsCall,
        check: (status, body) => status === 200 && answered(body) && !body.includes('"isError":true'),
      },
      {
        name: 'a2a',
        url: new URL('/api/v1/a2a/bench', base),
        headers: { 'a2a-version': '1.0' },
        body: () =>
          JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'SendMessage',
            params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
          }),
        check: (status, body) => status === 200 && answered(body) && body.includes('TASK_STATE_COMPLETED'),
      },
    ];

    const latencies = new Map<string, number[]>(targets.map((target) => [target.name, []]));
    let failures = 0;
    const agents = new Map(
      targets.map((target) => [target.name, new Agent({ keepAlive: true, maxSockets: 1 })]),
    );
    try {
      for (const target of targets) {
        const first = await post(agents.get(target.name) as Agent, target);
        if (!target.check(first.status, first.body))
          throw new Error(`${target.name}: unexpected answer ${first.status} ${first.body.slice(0, 300)}`);
      }
      progress(
        `agent-protocols: ${ROUNDS} rounds of ${ROUND_S} s per protocol, one client each, at ${service.url}`,
      );
      for (let roundIndex = 0; roundIndex <= ROUNDS; roundIndex += 1) {
        for (const target of targets) {
          const agent = agents.get(target.name) as Agent;
          const deadline = performance.now() + ROUND_S * 1000;
          while (performance.now() < deadline) {
            const started = performance.now();
            const answer = await post(agent, target).catch(() => ({ status: 0, body: '' }));
            const elapsed = performance.now() - started;
            // Round 0 warms every path up and is not counted.
            if (roundIndex === 0) continue;
            if (!target.check(answer.status, answer.body)) failures += 1;
            latencies.get(target.name)?.push(elapsed);
          }
        }
      }
    } finally {
      for (const agent of agents.values()) agent.destroy();
    }
    const median = (values: number[]): number => {
      const sorted = [...values].sort((a, b) => a - b);
      return round(sorted[Math.floor(sorted.length / 2)] ?? 0, 3);
    };
    const figures = Object.fromEntries(
      targets.map((target) => [
        target.name,
        {
          p50Ms: median(latencies.get(target.name) ?? []),
          requests: latencies.get(target.name)?.length ?? 0,
        },
      ]),
    );
    const added = (name: string, baseline: string): number =>
      round((figures[name]?.p50Ms ?? 0) - (figures[baseline]?.p50Ms ?? 0), 3);
    const result = {
      bench: 'agent-protocols',
      code: codeVersion(),
      ...figures,
      addedP50Ms: {
        mcpSession: added('mcpSession', 'chat'),
        mcpStateless: added('mcpStateless', 'chat'),
        a2a: added('a2a', 'chatSession'),
      },
      goalMs: 2,
      failures,
      serviceErrors: service.errorLogLines().length,
    };
    console.log(JSON.stringify(result));
  } finally {
    await service.stop();
  }
} finally {
  await upstream.stop();
}
