// The set-up the client-tool tests share: a listening app whose model is the fake upstream, with the
// agent `timed` whose server tool `clock` (a rule chain) always answers "12:00".
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { agentDefinition, chainDefinition } from '../fakes/builders.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';

/** POSTs a rule chain or an agent through the API and asserts it was created. */
export async function createResource(t: TestApp, url: string, payload: object): Promise<void> {
  const response = await t.app.inject({ method: 'POST', url, payload });
  assert.equal(response.statusCode, 201, response.body);
}

export async function startTimedAgentApp(): Promise<{ upstream: FakeUpstream; t: TestApp }> {
  // Frames 25 ms apart (a busy machine may hold a thread back for a few), so the streamed text
  // reaches the clients of these tests in pieces.
  const upstream = await startFakeUpstream({ frameGapMs: 25 });
  const t = await createTestApp({ listen: true, config: { models: upstream.modelsConfig() } });
  await createResource(
    t,
    '/api/v1/rules',
    chainDefinition('clock', [
      {
        id: 't',
        type: 'jsTransform',
        configuration: { jsScript: 'return {msg: "12:00", metadata: metadata, msgType: msgType};' },
      },
    ]),
  );
  await createResource(
    t,
    '/api/v1/agents',
    agentDefinition('timed', { tools: [{ type: 'rulechain', targetId: 'clock', name: 'clock' }] }),
  );
  return { upstream, t };
}
