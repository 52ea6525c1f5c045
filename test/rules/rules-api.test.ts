import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';

function chain(id: string, extra: Record<string, unknown> = {}) {
  return {
    ruleChain: {
      id,
      name: `Chain ${id}`,
      additionalInfo: { category: 'demo', layoutX: 10, editorOnly: { x: 1 } },
    },
    metadata: {
      firstNodeIndex: 0,
      nodes: [
        {
          id: 'filter',
          type: 'jsFilter',
          configuration: { jsScript: 'return msg.temperature > 20;' },
          additionalInfo: { position: { x: 1, y: 2 } },
        },
        {
          id: 'transform',
          type: 'jsTransform',
          configuration: {
            jsScript:
              'msg.hot = true; metadata.seen = "yes"; return {msg: msg, metadata: metadata, msgType: msgType};',
          },
        },
        { id: 'done', type: 'end' },
      ],
      connections: [
        { fromId: 'filter', toId: 'transform', type: 'True' },
        { fromId: 'transform', toId: 'done', type: 'Success' },
      ],
    },
    ...extra,
  };
}

describe('rule chains over REST', () => {
  let t: TestApp;
  afterEach(() => t?.close());

  const post = (url: string, payload: unknown) =>
    t.app.inject({ method: 'POST', url, payload: payload as object });

  it('creates, reads back unchanged (unknown keys kept), lists and executes a chain', async () => {
    t = await createTestApp();
    const created = await post('/api/v1/rules', chain('hot'));
    assert.equal(created.statusCode, 201, created.body);
    const read = (await t.app.inject({ method: 'GET', url: '/api/v1/rules/hot' })).json();
    const { status, ...definition } = read;
    assert.deepEqual(definition, chain('hot'));
    assert.deepEqual(status, { loaded: true });
    const stored = JSON.parse(await readFile(join(t.dir, 'data', 'rules', 'hot.json'), 'utf8'));
    assert.deepEqual(stored, chain('hot'));
    const executed = await post('/api/v1/rules/hot/execute?city=Oslo', { temperature: 25 });
    assert.equal(executed.statusCode, 200);
    assert.deepEqual(executed.json(), { temperature: 25, hot: true });
    const list = (await t.app.inject({ method: 'GET', url: '/api/v1/rules?category=demo' })).json();
    assert.equal(list.total, 1);
    assert.equal(list.data[0].ruleChain.id, 'hot');
  });

  it('an execute whose branch ends without end node returns that branch; a failure is a 400 with its error', async () => {
    t = await createTestApp();
    await post('/api/v1/rules', {
      ruleChain: { id: 'fails', name: 'fails' },
      metadata: {
        nodes: [
          {
            id: 'boom',
            type: 'jsTransform',
            configuration: { jsScript: 'throw new Error("bad input: " + msg.x);' },
          },
        ],
        connections: [],
      },
    });
    const failed = await post('/api/v1/rules/fails/execute', { x: 7 });
    assert.equal(failed.statusCode, 400);
    assert.match(failed.json().error, /bad input: 7/);
  });

  it('execute/{msgType} runs the chain with a message of that type, routed by msgTypeSwitch', async () => {
    t = await createTestApp();
    const typed = await post('/api/v1/rules', {
      ruleChain: { id: 'typed', name: 'typed' },
      metadata: {
        nodes: [
          { id: 'route', type: 'msgTypeSwitch' },
          {
            id: 'telemetry',
            type: 'jsTransform',
            configuration: { jsScript: 'return {msg: {kind: msgType, t: msg.t}, metadata, msgType};' },
          },
          {
            id: 'other',
            type: 'jsTransform',
            configuration: { jsScript: 'return {msg: {kind: "other:" + msgType}, metadata, msgType};' },
          },
        ],
        connections: [
          { fromId: 'route', toId: 'telemetry', type: 'TELEMETRY' },
          { fromId: 'route', toId: 'other', type: 'Default' },
        ],
      },
    });
    assert.equal(typed.statusCode, 201, typed.body);
    const telemetry = await post('/api/v1/rules/typed/execute/TELEMETRY', { t: 21 });
    assert.equal(telemetry.statusCode, 200, telemetry.body);
    assert.deepEqual(telemetry.json(), { kind: 'TELEMETRY', t: 21 });
    const alarm = await post('/api/v1/rules/typed/execute/ALARM', { t: 1 });
    assert.deepEqual(alarm.json(), { kind: 'other:ALARM' });
    const untyped = await post('/api/v1/rules/typed/execute', { t: 1 });
    assert.deepEqual(untyped.json(), { kind: 'other:' });
  });

  it('a run over the request time limit is a 504', async () => {
    t = await createTestApp({ config: { server: { request_timeout_ms: 200 } } });
    await post('/api/v1/rules', {
      ruleChain: { id: 'slow', name: 'slow' },
      metadata: {
        nodes: [{ id: 'wait', type: 'delay', configuration: { periodInSeconds: 5 } }],
        connections: [],
      },
    });
    const response = await post('/api/v1/rules/slow/execute', {});
    assert.equal(response.statusCode, 504);
    assert.match(response.json().error, /did not finish within 200 ms/);
  });

  it('validation errors name the chain, the node and the problem', async () => {
    t = await createTestApp();
    const unknownType = chain('bad1');
    unknownType.metadata.nodes[1] = { id: 'transform', type: 'noSuchNode', configuration: { jsScript: '' } };
    const r1 = await post('/api/v1/rules', unknownType);
    assert.equal(r1.statusCode, 400);
    assert.match(r1.json().error, /rule chain "bad1".*node "transform".*unknown node type "noSuchNode"/);
    const badScript = chain('bad2');
    badScript.metadata.nodes[0] = {
      id: 'filter',
      type: 'jsFilter',
      configuration: { jsScript: 'return (;' },
    } as never;
    const r2 = await post('/api/v1/rules', badScript);
    assert.equal(r2.statusCode, 400);
    assert.match(r2.json().error, /rule chain "bad2".*node "filter"/);
    const badId = chain('bad id!');
    const r3 = await post('/api/v1/rules', badId);
    assert.equal(r3.statusCode, 400);
    assert.match(r3.json().error, /ruleChain\.id/);
    // Without metadata RuleGo loads an empty chain (issue 27); metadata of the wrong shape is refused.
    const missing = await post('/api/v1/rules', { ruleChain: { id: 'x', name: 'x' }, metadata: 5 });
    assert.equal(missing.statusCode, 400);
    assert.match(missing.json().error, /metadata/);
    const cycle = chain('cyc');
    cycle.metadata.connections.push({ fromId: 'done', toId: 'filter', type: 'Success' });
    const r4 = await post('/api/v1/rules', cycle);
    assert.equal(r4.statusCode, 400);
    assert.match(r4.json().error, /rule chain "cyc".*cycle/);
  });

  it('a duplicate id is a 409, a path/body id mismatch 400, an unknown id 404', async () => {
    t = await createTestApp();
    await post('/api/v1/rules', chain('one'));
    const duplicate = await post('/api/v1/rules', chain('one'));
    assert.equal(duplicate.statusCode, 409);
    assert.deepEqual(duplicate.json(), { error: 'id "one" is already used by a rule chain' });
    const mismatch = await t.app.inject({ method: 'PUT', url: '/api/v1/rules/one', payload: chain('two') });
    assert.equal(mismatch.statusCode, 400);
    assert.match(mismatch.json().error, /does not match the id in the path/);
    const unknown = await t.app.inject({ method: 'GET', url: '/api/v1/rules/ghost' });
    assert.equal(unknown.statusCode, 404);
    assert.deepEqual(unknown.json(), { error: 'rule chain "ghost" not found' });
    const badPathId = await t.app.inject({ method: 'GET', url: '/api/v1/rules/bad%20id' });
    assert.equal(badPathId.statusCode, 400);
  });

  it('PUT replaces the chain and the new version serves at once; DELETE removes file and chain', async () => {
    t = await createTestApp();
    await post('/api/v1/rules', chain('c'));
    const updated = chain('c');
    updated.metadata.nodes[1] = {
      id: 'transform',
      type: 'jsTransform',
      configuration: {
        jsScript: 'msg.version = 2; return {msg: msg, metadata: metadata, msgType: msgType};',
      },
    };
    const put = await t.app.inject({ method: 'PUT', url: '/api/v1/rules/c', payload: updated });
    assert.equal(put.statusCode, 200);
    assert.deepEqual((await post('/api/v1/rules/c/execute', { temperature: 30 })).json(), {
      temperature: 30,
      version: 2,
    });
    const removed = await t.app.inject({ method: 'DELETE', url: '/api/v1/rules/c' });
    assert.equal(removed.statusCode, 200);
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/rules/c' })).statusCode, 404);
    await assert.rejects(readFile(join(t.dir, 'data', 'rules', 'c.json')));
  });

  it('a broken file at start is not loaded and shows its error; reload picks up a fixed or hand-dropped file', async () => {
    t = await createTestApp();
    const rulesDir = join(t.dir, 'data', 'rules');
    await mkdir(rulesDir, { recursive: true });
    await writeFile(join(rulesDir, 'dropped.json'), JSON.stringify(chain('dropped')));
    const reloaded = await post('/api/v1/rules/dropped/reload', {});
    assert.equal(reloaded.statusCode, 200, reloaded.body);
    assert.equal(reloaded.json().status.loaded, true);
    await writeFile(join(rulesDir, 'dropped.json'), '{ not json');
    const broken = await post('/api/v1/rules/dropped/reload', {});
    assert.equal(broken.statusCode, 400);
    assert.match(
      broken.json().error,
      /^rules\/dropped\.json is not valid JSON/,
      'the error names the file relative to the data root',
    );
    const status = (await t.app.inject({ method: 'GET', url: '/api/v1/rules/dropped' })).json().status;
    assert.equal(status.loaded, true, 'the old chain keeps serving');
    assert.match(status.error, /not valid JSON/);
    assert.equal((await post('/api/v1/rules/dropped/execute', { temperature: 21 })).statusCode, 200);
  });

  it('a broken file on disk never stops the start; the chain is listed as not loaded', async () => {
    const first = await createTestApp();
    const rulesDir = join(first.dir, 'data', 'rules');
    await mkdir(rulesDir, { recursive: true });
    await writeFile(
      join(rulesDir, 'broken.json'),
      JSON.stringify({
        ruleChain: { id: 'broken', name: 'b' },
        metadata: { nodes: [{ id: 'n', type: 'nope' }] },
      }),
    );
    const { createServices } = await import('../../src/services.ts');
    const services = await createServices(first.store);
    const views = services.chains.list({ kind: 'any' }, { loaded: false });
    const broken = views.find((v) => v.ruleChain['id'] === 'broken');
    assert.ok(broken);
    assert.equal(broken.status.loaded, false);
    assert.match(broken.status.error ?? '', /unknown node type "nope"/);
    await services.close();
    t = first;
  });

  it('agent-level rule routes only see chains of that agent', async () => {
    t = await createTestApp();
    const agent = chain('helper');
    assert.equal((await post('/api/v1/agents', agent)).statusCode, 201);
    const own = await post('/api/v1/agents/helper/rules', chain('helper-tool'));
    assert.equal(own.statusCode, 201, own.body);
    assert.equal(own.json().status.agentId, 'helper');
    await post('/api/v1/rules', chain('global-one'));
    const list = (await t.app.inject({ method: 'GET', url: '/api/v1/agents/helper/rules' })).json();
    assert.deepEqual(
      list.data.map((c: { ruleChain: { id: string } }) => c.ruleChain.id),
      ['helper-tool'],
    );
    const viaMain = await t.app.inject({ method: 'GET', url: '/api/v1/agents/main/rules/helper-tool' });
    assert.equal(viaMain.statusCode, 404);
    const filtered = (await t.app.inject({ method: 'GET', url: '/api/v1/rules?agentId=helper' })).json();
    assert.deepEqual(filtered.data.map((c: { ruleChain: { id: string } }) => c.ruleChain.id).sort(), [
      'helper',
      'helper-tool',
    ]);
    const unknownAgent = await t.app.inject({ method: 'GET', url: '/api/v1/agents/ghost/rules' });
    assert.equal(unknownAgent.statusCode, 404);
    assert.deepEqual(unknownAgent.json(), { error: 'agent "ghost" not found' });
  });

  it('GET /components describes every node type with relations and fields', async () => {
    t = await createTestApp();
    const list = (await t.app.inject({ method: 'GET', url: '/api/v1/components' })).json();
    // RuleGo's editor reads {endpoints, nodes, tools, builtins}; global names, never their values.
    assert.deepEqual(Object.keys(list).sort(), ['builtins', 'endpoints', 'nodes', 'tools']);
    assert.ok(list.builtins.globals.includes('models'));
    const components = list.nodes;
    const types = components.map((c: { type: string }) => c.type);
    for (const type of [
      'jsFilter',
      'jsTransform',
      'jsSwitch',
      'exprFilter',
      'switch',
      'fork',
      'join',
      'flow',
      'end',
      'log',
      'delay',
      'restApiCall',
      'for',
    ]) {
      assert.ok(types.includes(type), `missing ${type}`);
    }
    const filter = components.find((c: { type: string }) => c.type === 'jsFilter');
    assert.deepEqual(filter.relationTypes, ['True', 'False', 'Failure']);
    assert.ok(filter.fields.some((f: { name: string }) => f.name === 'jsScript'));
  });
});

describe('agents over REST', () => {
  let t: TestApp;
  afterEach(() => t?.close());

  it('the default agent main exists on first start and cannot be deleted', async () => {
    t = await createTestApp();
    const list = await t.app.inject({ method: 'GET', url: '/api/v1/agents' });
    assert.equal(list.statusCode, 200);
    const body = list.json();
    assert.deepEqual(Object.keys(body).sort(), ['data', 'page', 'size', 'total']);
    assert.equal(body.page, 1);
    assert.equal(body.size, 20);
    assert.equal(body.data[0].ruleChain.id, 'main');
    assert.equal(body.data[0].ruleChain.additionalInfo.category, 'agents');
    const removed = await t.app.inject({ method: 'DELETE', url: '/api/v1/agents/main' });
    assert.equal(removed.statusCode, 409);
    assert.deepEqual(removed.json(), { error: 'the default agent "main" cannot be deleted' });
  });

  it('pagination: page and size apply, size is capped at 100 and bad values are a 400', async () => {
    t = await createTestApp();
    for (const id of ['a1', 'a2', 'a3'])
      await t.app.inject({ method: 'POST', url: '/api/v1/agents', payload: chain(id) });
    const page = (await t.app.inject({ method: 'GET', url: '/api/v1/agents?page=2&size=2' })).json();
    assert.equal(page.total, 4);
    assert.deepEqual(
      page.data.map((a: { ruleChain: { id: string } }) => a.ruleChain.id),
      ['a3', 'main'],
    );
    for (const query of ['size=101', 'size=0', 'page=0', 'page=x']) {
      const bad = await t.app.inject({ method: 'GET', url: `/api/v1/agents?${query}` });
      assert.equal(bad.statusCode, 400, query);
      assert.match(bad.json().error, /^query\.(page|size): /);
    }
  });

  it('deleting an agent removes its folder and the chains that belong to it', async () => {
    t = await createTestApp();
    await t.app.inject({ method: 'POST', url: '/api/v1/agents', payload: chain('temp') });
    await t.app.inject({ method: 'POST', url: '/api/v1/agents/temp/rules', payload: chain('temp-rule') });
    const removed = await t.app.inject({ method: 'DELETE', url: '/api/v1/agents/temp' });
    assert.equal(removed.statusCode, 200);
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/rules/temp-rule' })).statusCode, 404);
    await assert.rejects(readFile(join(t.dir, 'data', 'agents', 'temp', 'agent.json')));
  });

  it('GET /agents/{id} of a rule chain is a 404; PUT with another id is a 400', async () => {
    t = await createTestApp();
    await t.app.inject({ method: 'POST', url: '/api/v1/rules', payload: chain('plain') });
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/agents/plain' })).statusCode, 404);
    const mismatch = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/agents/main',
      payload: chain('other'),
    });
    assert.equal(mismatch.statusCode, 400);
  });
});
