// More of RuleGo's own test cases for the node types added with the endpoints (components/filter
// group_filter_node_test, action/fetch_node_output_node_test and functions_node_test,
// common/iterator_node_test and while_node_test, external/cache_node_test), each run through
// `execute` with debugMode on and read back from the run log.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FunctionRegistry, ruleFunctions } from '../../src/engine/functions.ts';
import type { RuleMessage } from '../../src/engine/types.ts';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { runLogged } from './rulego-harness.ts';

const filter = (id: string, script: string) => ({
  id,
  type: 'jsFilter',
  configuration: { jsScript: script },
});

describe("RuleGo's test cases for the new node types", () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  describe('groupFilter (group_filter_node_test OnMsg)', () => {
    const filters = [
      filter('node1', 'return msg.temperature > 50;'),
      filter('node2', 'return msg.humidity > 80;'),
      // RuleGo's node3: a script that fails (an undefined name).
      filter('node3', 'return a'),
    ];
    const group = async (configuration: Record<string, unknown>, data: Record<string, unknown>) =>
      (
        await runLogged(t, [{ id: 'g', type: 'groupFilter', configuration }, ...filters], [], data, {
          query: { productType: 'test' },
        })
      ).node('g');

    it('any: True when one filter is True although another fails', async () => {
      const log = await group(
        { allMatches: false, nodeIds: 'node1,node2,node3', timeout: 10 },
        {
          temperature: 41,
          humidity: 90,
        },
      );
      assert.deepEqual(log.relationTypes, ['True']);
    });
    it('all: True when every filter is True; False when one of them fails', async () => {
      const hot = { temperature: 61, humidity: 90 };
      assert.deepEqual((await group({ allMatches: true, nodeIds: 'node1,node2' }, hot)).relationTypes, [
        'True',
      ]);
      assert.deepEqual(
        (await group({ allMatches: false, nodeIds: 'node1,node2,node3' }, hot)).relationTypes,
        ['True'],
      );
      assert.deepEqual((await group({ allMatches: true, nodeIds: 'node1,node2,node3' }, hot)).relationTypes, [
        'False',
      ]);
    });
    it('no nodeIds: the chain loads and the message is a Failure', async () => {
      const log = await group({ allMatches: false }, { temperature: 61 });
      assert.deepEqual(log.relationTypes, ['Failure']);
      assert.equal(log.err, 'nodeIds is empty');
    });
    it('a node slower than the timeout (seconds): Failure', async () => {
      const log = (
        await runLogged(
          t,
          [
            { id: 'g', type: 'groupFilter', configuration: { nodeIds: ['slow'], timeout: 1 } },
            { id: 'slow', type: 'delay', configuration: { delayMs: 1500 } },
          ],
          [],
          {},
        )
      ).node('g');
      assert.deepEqual(log.relationTypes, ['Failure']);
      assert.ok(log.err, 'a timeout error');
    });
  });

  describe('fetchNodeOutput (fetch_node_output_node_test)', () => {
    it("the target's data and metadata; a node with no output: Failure with the current message", async () => {
      const run = await runLogged(
        t,
        [
          {
            id: 'targetNode',
            type: 'jsTransform',
            configuration: {
              jsScript: "metadata.key = 'target value'; return {msg: 'target data', metadata, msgType};",
            },
          },
          {
            id: 'current',
            type: 'jsTransform',
            configuration: {
              jsScript: "metadata.key = 'current value'; return {msg: 'current data', metadata, msgType};",
            },
          },
          { id: 'fetch', type: 'fetchNodeOutput', configuration: { nodeId: 'targetNode' } },
          { id: 'missing', type: 'fetchNodeOutput', configuration: { nodeId: 'nonExistentNode' } },
          { id: 'nonExistentNode', type: 'comment' },
        ],
        [
          ['targetNode', 'Success', 'current'],
          ['current', 'Success', 'fetch'],
          ['current', 'Success', 'missing'],
        ],
        {},
        { msgType: 'TELEMETRY' },
      );
      const fetched = run.node('fetch');
      assert.deepEqual(fetched.relationTypes, ['Success']);
      assert.equal(fetched.outMsgs[0]?.msg.data, 'target data');
      assert.equal(fetched.outMsgs[0]?.msg.metadata['key'], 'target value');
      const missing = run.node('missing');
      assert.deepEqual(missing.relationTypes, ['Failure']);
      assert.ok(missing.err);
      assert.equal(missing.outMsgs[0]?.msg.data, 'current data');
    });
  });

  describe('iterator (iterator_node_test OnMsg)', () => {
    const data1 = { humidity: 90, temperature: 41 };
    const data2 = { humidity: 70, temperature: 66 };
    const iterate = async (configuration: Record<string, unknown>, data: unknown, dataType: string) =>
      (
        await runLogged(
          t,
          [{ id: 'it', type: 'iterator', configuration }],
          [],
          data as Record<string, unknown>,
          {
            query: { dataType },
          },
        )
      ).node('it');
    const texts = (log: Awaited<ReturnType<typeof iterate>>, relation: string) =>
      log.outMsgs.filter((out) => out.relationType === relation).map((out) => out.msg.data);

    it('no field: the values of an object, the items of an array; text is a Failure', async () => {
      const map = await iterate({}, data1, 'map');
      assert.deepEqual(texts(map, 'True').sort(), ['41', '90']);
      assert.deepEqual(JSON.parse(texts(map, 'Success')[0] ?? ''), data1);
      const array = await iterate({}, [data1, data2], 'array');
      assert.deepEqual(
        texts(array, 'True').map((text) => JSON.parse(text) as unknown),
        [data1, data2],
      );
      const text = await iterate({}, 'aaaa', 'string');
      assert.deepEqual(text.relationTypes, ['Failure']);
      assert.equal(text.err, 'value is not array or {key:value} type');
    });
    it('fieldName, dotted too; a field that is not there is a Failure naming it', async () => {
      const items = await iterate({ fieldName: 'items' }, { ...data1, items: [data1, data2] }, 'mapAndArray');
      assert.deepEqual(
        texts(items, 'True').map((text) => JSON.parse(text) as unknown),
        [data1, data2],
      );
      const dotted = await iterate(
        { fieldName: 'items.value' },
        { ...data1, items: { value: [data1, data2] } },
        'x',
      );
      assert.deepEqual(
        texts(dotted, 'True').map((text) => JSON.parse(text) as unknown),
        [data1, data2],
      );
      const missing = await iterate({ fieldName: 'notFoundItems' }, data1, 'map');
      assert.equal(missing.err, 'field=notFoundItems not found');
      const noItems = await iterate({ fieldName: 'items' }, [data1], 'array');
      assert.equal(noItems.err, 'field=items not found');
    });
    it('the item filter sees metadata and the index; a failing filter is a Failure', async () => {
      const script = "return metadata.dataType=='map'||index%2==0";
      const array = await iterate({ jsScript: script }, [data1, data2], 'array');
      assert.deepEqual(
        texts(array, 'True').map((text) => JSON.parse(text) as unknown),
        [data1],
      );
      assert.deepEqual(
        texts(array, 'False').map((text) => JSON.parse(text) as unknown),
        [data2],
      );
      const map = await iterate({ jsScript: script }, data1, 'map');
      assert.equal(texts(map, 'True').length, 2);
      const failing = await iterate({ jsScript: 'return aa' }, [data1], 'array');
      assert.deepEqual(failing.relationTypes, ['Failure']);
    });
  });

  describe('while with functions (while_node_test)', () => {
    const counter = (message: RuleMessage, breakAt?: number) => {
      const count = Number(message.metadata['count'] ?? '0') + 1;
      const metadata: Record<string, string> = { ...message.metadata, count: String(count) };
      if (count === breakAt) metadata['_break'] = '1';
      return [{ relation: 'Success', message: { ...message, data: String(count), metadata } }];
    };
    before(() => {
      ruleFunctions.register('whileLoopTest', (message) => counter(message));
      ruleFunctions.register('breakLoopTest', (message) => counter(message, 2));
      ruleFunctions.register('errorLoopTest', () => {
        throw new Error('test error');
      });
    });
    after(() => {
      for (const name of ['whileLoopTest', 'breakLoopTest', 'errorLoopTest']) ruleFunctions.unregister(name);
    });
    const loop = async (configuration: Record<string, unknown>, functionName = 'whileLoopTest') =>
      (
        await runLogged(
          t,
          [
            { id: 'w', type: 'while', configuration: { do: 'node1', ...configuration } },
            { id: 'node1', type: 'functions', configuration: { functionName } },
          ],
          [],
          '0',
          // RuleGo's test messages are JSON: data 0.
          { query: { count: '0' }, json: '0' },
        )
      ).node('w');

    it('modes 2 (and the default), 0 and 1', async () => {
      for (const mode of [2, undefined]) {
        const log = await loop({
          condition: 'int(metadata.count) < 3',
          ...(mode === undefined ? {} : { mode }),
        });
        assert.equal(log.outMsgs[0]?.msg.metadata['count'], '3', `mode ${mode}`);
        assert.equal(log.outMsgs[0]?.msg.data, '3', `mode ${mode}`);
      }
      const kept = await loop({ condition: 'int(metadata.count) < 3', mode: 0 });
      assert.equal(kept.outMsgs[0]?.msg.data, '0');
      assert.equal(kept.outMsgs[0]?.msg.metadata['count'], '0');
      const merged = await loop({ condition: 'int(metadata.count) < 3', mode: 1 });
      assert.equal(merged.outMsgs[0]?.msg.metadata['count'], '3');
      assert.equal(merged.outMsgs[0]?.msg.data, '[1,2,3]');
    });
    it('a condition failing at run time and a failing body are Failures ("test error")', async () => {
      const bad = await loop({ condition: 'int(metadata.not_exists) < 3' });
      assert.deepEqual(bad.relationTypes, ['Failure']);
      assert.ok(bad.err);
      const failing = await loop({ condition: 'int(metadata.count) < 3' }, 'errorLoopTest');
      assert.deepEqual(failing.relationTypes, ['Failure']);
      assert.match(failing.err ?? '', /^(Error: )?test error$/);
    });
    it('_break set by the body stops the loop at 2 and is removed', async () => {
      const log = await loop({ condition: 'int(metadata.count) < 5' }, 'breakLoopTest');
      assert.deepEqual(log.relationTypes, ['Success']);
      assert.equal(log.outMsgs[0]?.msg.metadata['count'], '2');
      assert.equal(log.outMsgs[0]?.msg.data, '2');
      assert.equal(log.outMsgs[0]?.msg.metadata['_break'], undefined);
    });
  });

  describe('functions (functions_node_test Param and registry)', () => {
    before(() => ruleFunctions.register('echo', (message) => [{ relation: 'Success', message }]));
    after(() => ruleFunctions.unregister('echo'));

    it('param: static, from metadata, absent (the data stays), a JSON template', async () => {
      const cases: Array<[string | undefined, string]> = [
        ['static_param', 'static_param'],
        ['${metadata.key}', 'dynamic_value'],
        [undefined, 'original_data'],
        ['{"name":"${metadata.key}"}', '{"name":"dynamic_value"}'],
      ];
      for (const [param, expected] of cases) {
        const log = (
          await runLogged(
            t,
            [
              {
                id: 'fn',
                type: 'functions',
                configuration: { functionName: 'echo', ...(param ? { param } : {}) },
              },
            ],
            [],
            'original_data',
            { query: { key: 'dynamic_value' } },
          )
        ).node('fn');
        assert.deepEqual(log.relationTypes, ['Success'], String(param));
        assert.equal(log.outMsgs[0]?.msg.data, expected, String(param));
      }
    });
    it('registerDef and register keep label and description; names keep the order of registration', () => {
      const registry = new FunctionRegistry();
      assert.equal(registry.get('add2'), undefined);
      registry.register('add2', (message) => [{ relation: 'fromAdd2', message }]);
      assert.ok(registry.get('add2'));
      registry.unregister('add2');
      assert.equal(registry.get('add2'), undefined);
      registry.registerDef({
        name: 'testDef',
        label: '测试函数',
        description: '这是一个测试函数',
        run: () => [],
      });
      registry.register('testParams', () => [], '测试函数Params', '这是一个测试函数Params');
      const defs = registry.list();
      assert.deepEqual(
        defs.find((def) => def.name === 'testDef'),
        {
          name: 'testDef',
          label: '测试函数',
          description: '这是一个测试函数',
        },
      );
      assert.equal(defs.find((def) => def.name === 'testParams')?.label, '测试函数Params');
      for (const name of ['order1', 'order2', 'order3']) registry.register(name, () => []);
      const order = (names: string[]) => ['order1', 'order2', 'order3'].map((name) => names.indexOf(name));
      const [one, two, three] = order(registry.names());
      assert.ok((one as number) < (two as number) && (two as number) < (three as number));
      registry.unregister('order2');
      assert.ok(!registry.names().includes('order2'));
      registry.register('order2', () => []);
      const [again1, again2, again3] = order(registry.names());
      assert.ok((again1 as number) < (again3 as number) && (again3 as number) < (again2 as number));
    });
  });

  describe('cacheGet (cache_node_test)', () => {
    const get = (configuration: Record<string, unknown>) => ({ id: 'get', type: 'cacheGet', configuration });
    const run = async (configuration: Record<string, unknown>, data: Record<string, unknown> | string) =>
      (await runLogged(t, [get(configuration)], [], data)).node('get');

    it('output mode 1 on text data is a Failure', async () => {
      const setAndGet = await runLogged(
        t,
        [
          { id: 'set', type: 'cacheSet', configuration: { items: [{ key: 'testKey', value: 'testValue' }] } },
          get({ keys: [{ key: 'testKey' }], outputMode: 1 }),
        ],
        [['set', 'Success', 'get']],
        '{"oldKey":"oldValue"}',
      );
      assert.deepEqual(setAndGet.node('get').relationTypes, ['Failure']);
    });
    it('whenKeyNotFound failure in every output mode, success in mode 2, in any letter case', async () => {
      for (const outputMode of [0, 1, 2]) {
        const log = await run(
          { keys: [{ key: `missingKeyFailure${outputMode}` }], outputMode, whenKeyNotFound: 'failure' },
          { original: 'data' },
        );
        assert.deepEqual(log.relationTypes, ['Failure'], `mode ${outputMode}`);
        assert.equal(log.err, 'cache: key is missing');
      }
      const upper = await run(
        { keys: [{ key: 'missingKeyCi' }], outputMode: 0, whenKeyNotFound: 'Failure' },
        {},
      );
      assert.deepEqual(upper.relationTypes, ['Failure']);
      const success = await run(
        { keys: [{ key: 'missingKeyCi2' }], outputMode: 2, whenKeyNotFound: 'SUCCESS' },
        {},
      );
      assert.deepEqual(success.relationTypes, ['Success']);
    });
  });
});
