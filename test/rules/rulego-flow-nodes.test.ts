// Facts from RuleGo's tests and sources for groupFilter, ref, fetchNodeOutput, iterator, while/break,
// functions and comment (components/filter, common, action), run through the REST API with debugMode.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ruleFunctions } from '../../src/engine/functions.ts';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { chainDefinition } from '../fakes/builders.ts';
import { createChain, outData, runLogged } from './rulego-harness.ts';

const filter = (id: string, script: string) => ({
  id,
  type: 'jsFilter',
  configuration: { jsScript: script },
});
const transform = (id: string, script: string) => ({
  id,
  type: 'jsTransform',
  configuration: { jsScript: script },
});

describe('RuleGo flow and data nodes', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
    const other = chainDefinition(
      'chain01',
      [
        transform('node01', "metadata.from = 'chain01'; return {msg, metadata, msgType};"),
        transform('node02', "metadata.after = 'yes'; msg.after = 'yes'; return {msg, metadata, msgType};"),
      ],
      [['node01', 'Success', 'node02']],
    );
    const created = await t.app.inject({ method: 'POST', url: '/api/v1/rules', payload: other });
    assert.equal(created.statusCode, 201, created.body);
  });
  after(() => t.close());

  describe('groupFilter', () => {
    const group = (configuration: Record<string, unknown>) =>
      runLogged(
        t,
        [
          { id: 'g', type: 'groupFilter', configuration },
          filter('f1', 'return msg.temperature > 50;'),
          filter('f2', 'return msg.temperature > 70;'),
        ],
        [],
        { temperature: 60 },
      );

    it('any (allMatches false): True when one filter is True', async () => {
      const run = await group({ nodeIds: 'f1,f2' });
      assert.deepEqual(run.node('g').relationTypes, ['True']);
    });
    it('all (allMatches true): False when one filter is False; the list form works too', async () => {
      assert.deepEqual((await group({ nodeIds: ['f1', 'f2'], allMatches: true })).node('g').relationTypes, [
        'False',
      ]);
      assert.deepEqual((await group({ nodeIds: ['f1'], allMatches: true })).node('g').relationTypes, [
        'True',
      ]);
    });
    it('none True: False; no node ids: Failure "nodeIds is empty"', async () => {
      assert.deepEqual((await group({ nodeIds: 'f2' })).node('g').relationTypes, ['False']);
      const empty = (await group({ nodeIds: '' })).node('g');
      assert.deepEqual(empty.relationTypes, ['Failure']);
      assert.equal(empty.err, 'nodeIds is empty');
    });
    it('a node id that is not in the chain is refused at load', async () => {
      const response = await createChain(t, [
        { id: 'g', type: 'groupFilter', configuration: { nodeIds: 'nope' } },
      ]);
      assert.equal(response.statusCode, 400);
      assert.match(response.body, /refers to unknown node \\"nope\\"/);
    });
  });

  describe('ref', () => {
    const ref = (configuration: Record<string, unknown>) =>
      runLogged(
        t,
        [
          { id: 'r', type: 'ref', configuration },
          transform('n1', "metadata.local = 'yes'; return {msg, metadata, msgType};"),
          transform('n2', "metadata.next = 'yes'; return {msg, metadata, msgType};"),
        ],
        [['n1', 'Success', 'n2']],
        { temperature: 60 },
      );

    it('targetId is required ("targetId is empty"); a bad form is refused', async () => {
      const empty = await createChain(t, [{ id: 'r', type: 'ref', configuration: {} }]);
      assert.equal(empty.statusCode, 400);
      const bad = await createChain(t, [{ id: 'r', type: 'ref', configuration: { targetId: 'a:b:c' } }]);
      assert.equal(bad.statusCode, 400);
      assert.match(bad.body, /invalid targetId format/);
    });
    it('a local node alone: its output and relation, not what follows it', async () => {
      const run = await ref({ targetId: 'n1' });
      const log = run.node('r');
      assert.deepEqual(log.relationTypes, ['Success']);
      assert.equal(log.outMsgs[0]?.msg.metadata['local'], 'yes');
      assert.equal(log.outMsgs[0]?.msg.metadata['next'], undefined);
    });
    it('tellChain runs what follows the target', async () => {
      const log = (await ref({ targetId: 'n1', tellChain: true })).node('r');
      assert.equal(log.outMsgs[0]?.msg.metadata['next'], 'yes');
    });
    it('chainId:nodeId calls a node of another chain; a missing chain or node is a Failure', async () => {
      const log = (await ref({ targetId: 'chain01:node01' })).node('r');
      assert.deepEqual(log.relationTypes, ['Success']);
      assert.equal(log.outMsgs[0]?.msg.metadata['from'], 'chain01');
      assert.equal(log.outMsgs[0]?.msg.metadata['after'], undefined);
      const whole = (await ref({ targetId: 'chain01:node01', tellChain: true })).node('r');
      assert.equal(whole.outMsgs[0]?.msg.metadata['after'], 'yes');
      for (const targetId of ['nochain:node01', 'chain01:nonode', 'node01']) {
        const failed = (await ref({ targetId })).node('r');
        assert.deepEqual(failed.relationTypes, ['Failure'], targetId);
        assert.ok(failed.err, targetId);
      }
    });
  });

  describe('fetchNodeOutput', () => {
    it("passes on an earlier node's output; Failure when that node has not run", async () => {
      const run = await runLogged(
        t,
        [
          transform('n1', 'return {msg: {step: 1}, metadata, msgType};'),
          transform('n2', 'return {msg: {step: 2}, metadata, msgType};'),
          { id: 'fetch', type: 'fetchNodeOutput', configuration: { nodeId: 'n1' } },
          { id: 'missing', type: 'fetchNodeOutput', configuration: { nodeId: 'never' } },
          transform('never', 'return {msg, metadata, msgType};'),
        ],
        [
          ['n1', 'Success', 'n2'],
          ['n2', 'Success', 'fetch'],
          ['fetch', 'Success', 'missing'],
        ],
        { step: 0 },
      );
      assert.deepEqual(outData(run.node('fetch')), { step: 1 });
      const missing = run.node('missing');
      assert.deepEqual(missing.relationTypes, ['Failure']);
      assert.equal(missing.err, 'node never output not found');
    });
  });

  describe('iterator', () => {
    const iterate = (configuration: Record<string, unknown>, payload: Record<string, unknown>) =>
      runLogged(t, [{ id: 'it', type: 'iterator', configuration }], [], payload);

    it('each item on True, then the incoming message on Success', async () => {
      const log = (await iterate({ fieldName: 'items' }, { items: [1, { a: 2 }, 'x'] })).node('it');
      assert.deepEqual(log.relationTypes, ['True', 'True', 'True', 'Success']);
      assert.deepEqual(
        log.outMsgs.map((out) => out.msg.data),
        ['1', '{"a":2}', 'x', '{"items":[1,{"a":2},"x"]}'],
      );
    });
    it('the item filter routes True or False with (item, index, metadata)', async () => {
      const log = (
        await iterate({ fieldName: 'items', jsScript: 'return item > 1 && index < 2;' }, { items: [1, 2, 3] })
      ).node('it');
      assert.deepEqual(log.relationTypes, ['False', 'True', 'False', 'Success']);
    });
    it('a missing field and a value that is not a list are Failures', async () => {
      const missing = (await iterate({ fieldName: 'nope' }, { items: [] })).node('it');
      assert.equal(missing.err, 'field=nope not found');
      const scalar = (await iterate({ fieldName: 'n' }, { n: 5 })).node('it');
      assert.equal(scalar.err, 'value is not array or {key:value} type');
    });
  });

  describe('while and break', () => {
    const body = transform(
      'node1',
      'metadata.count = String(Number(metadata.count) + 1); return {msg: {count: Number(metadata.count)}, metadata, msgType};',
    );
    const loop = (
      configuration: Record<string, unknown>,
      nodes = [body],
      links: Array<[string, string, string]> = [],
    ) =>
      runLogged(
        t,
        [{ id: 'w', type: 'while', configuration }, ...nodes],
        links,
        { count: 0 },
        {
          query: { count: '0' },
        },
      );

    it('mode 2 (default): the last result goes on', async () => {
      const log = (await loop({ condition: 'int(metadata.count) < 3', do: 'node1' })).node('w');
      assert.deepEqual(log.relationTypes, ['Success']);
      assert.equal(log.outMsgs[0]?.msg.metadata['count'], '3');
      assert.deepEqual(outData(log), { count: 3 });
    });
    it('mode 0: the incoming message goes on; mode 1: every result as an array', async () => {
      const kept = (await loop({ condition: 'int(metadata.count) < 3', do: 'node1', mode: 0 })).node('w');
      assert.equal(kept.outMsgs[0]?.msg.metadata['count'], '0');
      assert.deepEqual(outData(kept), { count: 0 });
      const merged = (await loop({ condition: 'int(metadata.count) < 3', do: 'node1', mode: 1 })).node('w');
      assert.equal(merged.outMsgs[0]?.msg.metadata['count'], '3');
      assert.deepEqual(outData(merged), [{ count: 1 }, { count: 2 }, { count: 3 }]);
    });
    it('a condition that cannot be evaluated and a failing body are Failures', async () => {
      const bad = (await loop({ condition: 'int(metadata.not_exists) < 3', do: 'node1' })).node('w');
      assert.deepEqual(bad.relationTypes, ['Failure']);
      const failing = (
        await loop({ condition: 'true', do: 'boom' }, [transform('boom', "throw new Error('test error');")])
      ).node('w');
      assert.deepEqual(failing.relationTypes, ['Failure']);
      assert.match(failing.err ?? '', /test error/);
    });
    it('an empty condition, an empty do and chain:a:b are refused at load', async () => {
      for (const configuration of [
        { condition: '', do: 'node1' },
        { condition: 'true', do: '' },
        { condition: 'true', do: 'chain:s1:invalid' },
        { condition: 'invalid syntax!!', do: 'node1' },
      ]) {
        const response = await createChain(t, [{ id: 'w', type: 'while', configuration }, body]);
        assert.equal(response.statusCode, 400, JSON.stringify(configuration));
      }
    });
    it('break ends the loop over a list early', async () => {
      // Sums msg.list from msg.i on; the body breaks at the first negative item.
      const run = await runLogged(
        t,
        [
          { id: 'w', type: 'while', configuration: { condition: 'msg.i < len(msg.list)', do: 'step' } },
          transform(
            'step',
            'const item = msg.list[msg.i]; msg.i += 1; if (item >= 0) msg.sum += item; else metadata.stop = "1"; return {msg, metadata, msgType};',
          ),
          filter('negative', 'return metadata.stop === "1";'),
          { id: 'brk', type: 'break' },
        ],
        [
          ['step', 'Success', 'negative'],
          ['negative', 'True', 'brk'],
        ],
        { list: [1, 2, 3, -1, 10], i: 0, sum: 0 },
      );
      const log = run.node('w');
      assert.deepEqual(outData(log), { list: [1, 2, 3, -1, 10], i: 4, sum: 6 });
      assert.equal(log.outMsgs[0]?.msg.metadata['_break'], undefined);
      assert.equal(log.outMsgs[0]?.msg.metadata['_loopIndex'], '3');
    });
  });

  describe('functions', () => {
    before(() => {
      ruleFunctions.register('add', (message) => [
        {
          relation: 'fromAdd',
          message: { ...message, metadata: { ...message.metadata, addFrom: 'addFunction' } },
        },
      ]);
    });
    after(() => ruleFunctions.unregister('add'));

    it('calls the named function (also from ${functionName}); an unknown name is a Failure', async () => {
      for (const functionName of ['add', '${functionName}']) {
        const log = (
          await runLogged(t, [{ id: 'fn', type: 'functions', configuration: { functionName } }], [], 'AA', {
            query: { functionName: 'add' },
          })
        ).node('fn');
        assert.deepEqual(log.relationTypes, ['fromAdd'], functionName);
        assert.equal(log.outMsgs[0]?.msg.metadata['addFrom'], 'addFunction');
      }
      const unknown = (
        await runLogged(t, [{ id: 'fn', type: 'functions', configuration: { functionName: 'aa' } }], [], 'AA')
      ).node('fn');
      assert.equal(unknown.err, 'can not found the function=aa');
    });
    it('param replaces the data before a built-in runs', async () => {
      const log = (
        await runLogged(
          t,
          [
            {
              id: 'fn',
              type: 'functions',
              configuration: { functionName: 'toUpper', param: 'hi ${msg.name}' },
            },
          ],
          [],
          { name: 'ada' },
        )
      ).node('fn');
      assert.equal(log.outMsgs[0]?.msg.data, 'HI ADA');
    });
  });

  it('comment passes the message on with Success', async () => {
    const log = (
      await runLogged(t, [{ id: 'c', type: 'comment', configuration: { note: 'x' } }], [], { a: 1 })
    ).node('c');
    assert.deepEqual(log.relationTypes, ['Success']);
    assert.deepEqual(outData(log), { a: 1 });
  });

  it('an empty chain (no metadata) loads and every run fails with "the rule chain has no nodes"', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/rules',
      payload: { ruleChain: { id: 'testNoNodes', name: 'testRuleChain01' } },
    });
    assert.equal(created.statusCode, 201, created.body);
    const run = await t.app.inject({
      method: 'POST',
      url: '/api/v1/rules/testNoNodes/execute',
      payload: { temperature: 41 },
    });
    assert.match(run.body, /the rule chain has no nodes/);
  });

  it('ruleChainConnections: a relation leads into another chain, whose ends are the run ends', async () => {
    const definition = chainDefinition('withSub', [
      transform('s1', "metadata.first = 'yes'; return {msg, metadata, msgType};"),
    ]);
    const payload = {
      ...definition,
      metadata: {
        ...definition.metadata,
        ruleChainConnections: [{ fromId: 's1', toId: 'chain01', type: 'Success' }],
      },
    };
    const created = await t.app.inject({ method: 'POST', url: '/api/v1/rules', payload });
    assert.equal(created.statusCode, 201, created.body);
    const run = await t.app.inject({
      method: 'POST',
      url: '/api/v1/rules/withSub/execute',
      payload: { a: 1 },
    });
    assert.equal(run.statusCode, 200, run.body);
    assert.deepEqual(run.json(), { a: 1, after: 'yes' });
    const broken = { ...payload, ruleChain: { ...payload.ruleChain, id: 'withBadSub' } };
    broken.metadata = {
      ...payload.metadata,
      ruleChainConnections: [{ fromId: 'nope', toId: 'chain01', type: 'Success' }],
    };
    const refused = await t.app.inject({ method: 'POST', url: '/api/v1/rules', payload: broken });
    assert.equal(refused.statusCode, 400);
  });
});
