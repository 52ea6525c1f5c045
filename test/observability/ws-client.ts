// A real `ws` client that collects the events it receives, for the WebSocket event API tests.
import WebSocket from 'ws';

export interface Received {
  id?: string;
  type: string;
  agentId?: string;
  taskId?: string;
  timestamp?: number;
  payload?: Record<string, unknown>;
}

export interface EventClient {
  socket: WebSocket;
  events: Received[];
  /** Resolves with the events once `check` holds for them (polls every 10 ms). */
  until(check: (events: Received[]) => boolean, what: string, timeoutMs?: number): Promise<Received[]>;
  closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

export async function connect(
  url: string,
  options: { headers?: Record<string, string>; protocols?: string[] } = {},
): Promise<EventClient> {
  const socket = new WebSocket(url, options.protocols ?? [], { headers: options.headers ?? {} });
  const events: Received[] = [];
  socket.on('message', (data) => events.push(JSON.parse(String(data)) as Received));
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: String(reason) })),
  );
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
    socket.once('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += String(chunk)));
      response.on('end', () => reject(Object.assign(new Error(body), { status: response.statusCode, body })));
    });
  });
  // The server confirms the subscription first; events published after it reach this client.
  await until(events, (list) => list.some((event) => event.type === 'subscribed'), 'the subscription', 5000);
  return {
    socket,
    events,
    until: (check, what, timeoutMs = 10_000) => until(events, check, what, timeoutMs),
    closed,
    close: () => socket.close(),
  };
}

async function until(
  events: Received[],
  check: (events: Received[]) => boolean,
  what: string,
  timeoutMs: number,
): Promise<Received[]> {
  const deadline = Date.now() + timeoutMs;
  while (!check(events)) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(events.map((e) => e.type))}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return events;
}

/** The upgrade's HTTP refusal: status and {error} body. */
export async function refusal(
  url: string,
  options: { headers?: Record<string, string> } = {},
): Promise<{ status: number; body: { error?: string } }> {
  try {
    await connect(url, options);
  } catch (error) {
    const failure = error as { status?: number; body?: string };
    if (failure.status === undefined) throw error;
    return { status: failure.status, body: JSON.parse(failure.body ?? '{}') as { error?: string } };
  }
  throw new Error(`${url} was accepted`);
}
