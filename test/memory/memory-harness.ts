// An app whose default provider is the scripted model (in-process fetch, no retries) with a small
// context window, and an agent `keeper` with a fixed prompt, the read tool and the memory tools.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { agentDefinition } from '../fakes/builders.ts';
import { createScriptedModel, type ScriptedModel } from '../fakes/scripted-model.ts';
import type { TurnOutput } from '../../src/turns/turn-events.ts';

export const AGENT = 'keeper';
export const TOOLS = ['read', 'memory_search', 'memory_get', 'memory_write', 'session_search'];

export interface MemoryApp {
  t: TestApp;
  model: ScriptedModel;
  turn(sessionId: string, input: string): Promise<TurnOutput>;
  key(sessionId: string): string;
  close(): Promise<void>;
}

export async function startMemoryApp(
  options: { window?: number; compaction?: Record<string, unknown>; config?: Record<string, unknown> } = {},
): Promise<MemoryApp> {
  const window = options.window ?? 6000;
  const model = createScriptedModel({ window });
  const t = await createTestApp({
    config: {
      engine: { model_workers: 0 },
      models: {
        default_provider: 'scripted',
        providers: {
          scripted: {
            base_url: 'http://127.0.0.1:9/v1',
            api_key: 'sk-test',
            model: 'scripted-1',
            context_window: window,
          },
        },
      },
      agents: { defaults: { compaction: { keep_recent_tokens: 800, ...options.compaction } } },
      ...options.config,
    },
    services: { models: { fetch: model.fetch, maxRetries: 0 } },
  });
  const definition = agentDefinition(AGENT, {
    systemPrompt: 'You are keeper. You remember what users tell you.',
    tools: TOOLS.map((name) => ({ type: 'builtin', name })),
  });
  const created = await t.app.inject({ method: 'POST', url: '/api/v1/agents', payload: definition });
  if (created.statusCode !== 201) throw new Error(created.body);
  await writeFile(
    join(await t.services.workspace(AGENT), 'big.txt'),
    `${'lorem ipsum dolor sit amet '.repeat(150)}\n`,
  );
  const key = (sessionId: string) => `agent:${AGENT}:channel:api:scope:per_peer:${sessionId}`;
  return {
    t,
    model,
    key,
    turn: (sessionId, input) =>
      t.services.turns.complete({
        agentId: AGENT,
        input,
        session: { key: key(sessionId), info: { agentId: AGENT, channel: 'api', scope: 'per_peer' } },
        signal: AbortSignal.timeout(30_000),
      }),
    close: () => t.close(),
  };
}

/** The planted identifier of turn `index`. */
export function plantedId(index: number): string {
  return `ORD-${String(100_000 + index * 37)}`;
}

/** The user's words of turn `index` of the long session. */
export function userInput(index: number): string {
  if (index % 20 === 7) return `Please keep this: my order number is ${plantedId(index)} for turn ${index}.`;
  if (index % 10 === 3) return 'read big.txt';
  return `chat message ${index} about the weather and nothing in particular`;
}
