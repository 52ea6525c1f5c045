// Run logs: chains and nodes with debugMode record, per node, the message in, the messages out with
// their relations, errors and timing, readable through GET /api/v1/logs/runs.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LoggedMessage, NodeLog, RunLog } from '../../src/engine/run-log.ts';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';

const transform = (id: string, script: string, debugMode = true) => ({
  id,
  type: 'jsTransform',
  debugMode,
  configuration: { jsScript: script },
});

describe('run logs', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  const create = async (chain: object): Promise<void> => {
    const response = await t.app.inject({ method: 'POST', url: '/api/v1/rules', payload: chain });
    assert.equal(response.statusCode, 201, response.body);
  };
  const execute = (id: string, payload: object) =>
    t.app.inject({ method: 'POST', url: `/api/v1/rules/${id}/execute?source=test`, payload });
  const runsOf = async (chainId: string): Promise<RunLog[]> => {
    const response = await t.app.inject({ method: 'GET', url: `/api/v1/logs/runs?chainId=${chainId}` });
    assert.equal(response.statusCode, 200, response.body);
    const page = response.json() as { data: RunLog[]; total: number; page: number; size: number };
    assert.deepEqual(Object.keys(page).sort(), ['data', 'page', 'size', 'total']);
    return page.data;
  };

  it('logs each debug node of a fan-out and join: input, outputs with relations, timing', async () => {
    await create({
      ruleChain: { id: 'fan-logged', name: 'fan' },
      metadata: {
        nodes: [
          { id: 'split', type: 'fork', debugMode: true },
          transform('left', 'msg.left = msg.n + 1; return {msg, metadata, msgType};'),
          transform('right', 'msg.right = msg.n * 10; return {msg, metadata, msgType};'),
          { id: 'merge', type: 'join', debugMode: true },
          // Not logged: neither it nor its chain has debugMode.
          transform('quiet', 'return {msg, metadata, msgType};', false),
          { id: 'end', type: 'end' },
        ],
        connections: [
          { fromId: 'split', toId: 'left', type: 'Success' },
          { fromId: 'split', toId: 'right', type: 'Success' },
          { fromId: 'left', toId: 'merge', type: 'Success' },
          { fromId: 'right', toId: 'merge', type: 'Success' },
          { fromId: 'merge', toId: 'quiet', type: 'Success' },
          { fromId: 'quiet', toId: 'end', type: 'Success' },
        ],
      },
    });
    const response = await execute('fan-logged', { n: 2 });
    assert.equal(response.statusCode, 200, response.body);

    const [run, ...older] = await runsOf('fan-logged');
    assert.ok(run);
    assert.equal(older.length, 0);
    assert.equal(run.outcome, 'success');
    assert.ok(run.endTs >= run.startTs);
    const byNode = new Map(run.logs.map((log) => [log.nodeId, log]));
    assert.deepEqual([...byNode.keys()].sort(), ['left', 'merge', 'right', 'split']);

    const split = byNode.get('split') as NodeLog;
    assert.equal(split.nodeType, 'fork');
    assert.deepEqual(JSON.parse(split.inMsg.data), { n: 2 });
    assert.equal(split.inMsg.metadata['source'], 'test', 'query parameters are metadata');

    const left = byNode.get('left') as NodeLog;
    assert.deepEqual(JSON.parse(left.inMsg.data), { n: 2 }, 'the input as it arrived, before the script');
    assert.deepEqual(left.relationTypes, ['Success']);
    assert.equal(left.outMsgs[0]?.relationType, 'Success');
    assert.deepEqual(JSON.parse(left.outMsgs[0]?.msg.data ?? ''), { n: 2, left: 3 });
    assert.deepEqual(JSON.parse(byNode.get('right')?.outMsgs[0]?.msg.data ?? ''), { n: 2, right: 20 });
    assert.ok(left.endTs >= left.startTs);

    const merged = JSON.parse(byNode.get('merge')?.outMsgs[0]?.msg.data ?? '') as unknown[];
    assert.equal(merged.length, 2, 'join sends on the messages of both branches');

    const one = await t.app.inject({ method: 'GET', url: `/api/v1/logs/runs/${run.id}` });
    assert.equal(one.statusCode, 200);
    assert.equal((one.json() as RunLog).id, run.id);
  });

  it('a chain with debugMode logs every node, a failing one with its error and Failure', async () => {
    await create({
      ruleChain: { id: 'fail-logged', name: 'fail', debugMode: true },
      metadata: {
        nodes: [
          transform('ok', 'msg.seen = true; return {msg, metadata, msgType};', false),
          transform('boom', 'throw new Error("no such sensor: " + msg.sensor);', false),
        ],
        connections: [{ fromId: 'ok', toId: 'boom', type: 'Success' }],
      },
    });
    const response = await execute('fail-logged', { sensor: 'x9' });
    assert.equal(response.statusCode, 400);

    const [run] = await runsOf('fail-logged');
    assert.ok(run);
    assert.equal(run.outcome, 'failure');
    assert.match(run.error ?? '', /no such sensor: x9/);
    assert.deepEqual(
      run.logs.map((log) => log.nodeId),
      ['ok', 'boom'],
    );
    const boom = run.logs[1] as NodeLog;
    assert.deepEqual(boom.relationTypes, ['Failure']);
    assert.match(boom.err ?? '', /no such sensor: x9/);
    assert.match(boom.outMsgs[0]?.msg.metadata['errorMsg'] ?? '', /no such sensor/);
  });

  it('the body runs of a for node join the run of their chain', async () => {
    await create({
      ruleChain: { id: 'loop-logged', name: 'loop', debugMode: true },
      metadata: {
        nodes: [
          { id: 'loop', type: 'for', configuration: { range: 'msg.items', do: 'double', mode: 1 } },
          transform('double', 'return {msg: msg * 2, metadata, msgType};', false),
          { id: 'end', type: 'end' },
        ],
        connections: [{ fromId: 'loop', toId: 'end', type: 'Success' }],
      },
    });
    const response = await execute('loop-logged', { items: [1, 2, 3] });
    assert.equal(response.statusCode, 200, response.body);
    const runs = await runsOf('loop-logged');
    assert.equal(runs.length, 1, 'one run, not one per iteration');
    const ids = (runs[0] as RunLog).logs.map((log) => log.nodeId);
    assert.equal(ids.filter((id) => id === 'double').length, 3);
    assert.ok(ids.includes('loop') && ids.includes('end'));
  });

  it('a chain without debugMode records nothing', async () => {
    await create({
      ruleChain: { id: 'not-logged', name: 'plain' },
      metadata: { nodes: [transform('t', 'return {msg, metadata, msgType};', false)], connections: [] },
    });
    assert.equal((await execute('not-logged', { a: 1 })).statusCode, 200);
    assert.deepEqual(await runsOf('not-logged'), []);
  });

  it('cuts large data, answers 404 for an unknown run and 400 for a bad id, and deletes per chain', async () => {
    await create({
      ruleChain: { id: 'big-logged', name: 'big', debugMode: true },
      metadata: { nodes: [transform('t', 'return {msg, metadata, msgType};', false)], connections: [] },
    });
    assert.equal((await execute('big-logged', { text: 'x'.repeat(40_000) })).statusCode, 200);
    const [run] = await runsOf('big-logged');
    const inMsg = (run as RunLog).logs[0]?.inMsg as LoggedMessage;
    assert.equal(inMsg.truncated, true);
    assert.ok(inMsg.data.length <= 16 * 1024);

    const unknown = await t.app.inject({
      method: 'GET',
      url: '/api/v1/logs/runs/00000000-0000-0000-0000-000000000000',
    });
    assert.equal(unknown.statusCode, 404);
    assert.match(unknown.json().error, /not found/);
    const bad = await t.app.inject({ method: 'GET', url: '/api/v1/logs/runs?chainId=../x' });
    assert.equal(bad.statusCode, 400);

    const deleted = await t.app.inject({ method: 'DELETE', url: '/api/v1/logs/runs?chainId=big-logged' });
    assert.equal(deleted.statusCode, 200);
    assert.deepEqual(deleted.json(), { deleted: 1 });
    assert.deepEqual(await runsOf('big-logged'), []);
    assert.ok((await runsOf('fan-logged')).length > 0, 'other chains keep their logs');
    const removed = await t.app.inject({ method: 'DELETE', url: '/api/v1/rules/fan-logged' });
    assert.equal(removed.statusCode, 200, removed.body);
    assert.deepEqual(await runsOf('fan-logged'), [], 'a deleted chain takes its logs along');
  });
});
