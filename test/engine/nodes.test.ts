import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newMessage } from '../../src/engine/message.ts';
import { chain, createEngine, testServices } from './helpers.ts';
import type { NodeSpec } from './helpers.ts';

const label = (id: string, text: string): NodeSpec => ({
  id,
  type: 'jsTransform',
  configuration: { jsScript: `return {msg: ${JSON.stringify(text)}, metadata, msgType};` },
});

test('switch takes the relation of the first case that holds, else Default', async () => {
  const engine = createEngine();
  await engine.load(
    chain(
      'c1',
      [
        {
          id: 's',
          type: 'switch',
          configuration: {
            cases: [
              { case: 'msg.temperature > 30', then: 'hot' },
              { case: 'msg.temperature > 10 && metadata.site == "x"', then: 'mild' },
              { case: 'true', then: 'never-first' },
            ],
          },
        },
        label('hot', 'hot'),
        label('mild', 'mild'),
      ],
      [
        ['s', 'hot', 'hot'],
        ['s', 'mild', 'mild'],
      ],
    ),
  );
  const run = async (data: object, site: string) =>
    (await engine.execute('c1', newMessage(data, { metadata: { site } }))).results[0]?.data;
  assert.equal(await run({ temperature: 35 }, 'x'), 'hot');
  assert.equal(await run({ temperature: 20 }, 'x'), 'mild');
  // Falls through to the third case, a relation with no connection: the branch ends with the input.
  assert.equal(await run({ temperature: 20 }, 'y'), '{"temperature":20}');

  const definition = chain(
    'c2',
    [
      { id: 'plain', type: 'switch', configuration: { cases: [{ case: 'msgType == "A"', then: 'isA' }] } },
      label('default', 'default'),
    ],
    [['plain', 'Default', 'default']],
  );
  await engine.load(definition);
  assert.equal((await engine.execute('c2', newMessage({}, { type: 'B' }))).results[0]?.data, 'default');
  await engine.close();
});

test('jsSwitch sends the message down every relation it names', async () => {
  const engine = createEngine();
  await engine.load(
    chain(
      'c1',
      [
        { id: 's', type: 'jsSwitch', configuration: { jsScript: 'return msg.targets;' } },
        label('a', 'went a'),
        label('b', 'went b'),
        label('c', 'went c'),
      ],
      [
        ['s', 'a', 'a'],
        ['s', 'b', 'b'],
        ['s', 'c', 'c'],
      ],
    ),
  );
  const both = await engine.execute('c1', newMessage({ targets: ['a', 'c'] }));
  assert.deepEqual(both.results.map((message) => message.data).sort(), ['went a', 'went c']);
  const single = await engine.execute('c1', newMessage({ targets: ['b'] }));
  assert.deepEqual(
    single.results.map((message) => message.data),
    ['went b'],
  );
  // As RuleGo: a result that is not an array is a Failure.
  const notArray = await engine.execute('c1', newMessage({ targets: 'b' }));
  assert.equal(notArray.outcome, 'failure');
  assert.match(notArray.error ?? '', /return the value is not an array/);
  await engine.close();
});

test('exprFilter routes True and False by an expression', async () => {
  const engine = createEngine();
  await engine.load(
    chain(
      'c1',
      [
        { id: 'f', type: 'exprFilter', configuration: { expr: 'msg.level >= 3 && msgType == "ALERT"' } },
        label('t', 'yes'),
        label('n', 'no'),
      ],
      [
        ['f', 'True', 't'],
        ['f', 'False', 'n'],
      ],
    ),
  );
  assert.equal(
    (await engine.execute('c1', newMessage({ level: 3 }, { type: 'ALERT' }))).results[0]?.data,
    'yes',
  );
  assert.equal(
    (await engine.execute('c1', newMessage({ level: 2 }, { type: 'ALERT' }))).results[0]?.data,
    'no',
  );
  await engine.close();
});

test('delay waits before passing the message on, and refuses more than maxPendingMsgs', async () => {
  const engine = createEngine();
  await engine.load(
    chain('c1', [{ id: 'd', type: 'delay', configuration: { delayMs: 40, maxPendingMsgs: 1 } }]),
  );
  const started = Date.now();
  const [first, second] = await Promise.all([
    engine.execute('c1', newMessage('one')),
    engine.execute('c1', newMessage('two')),
  ]);
  assert.ok(Date.now() - started >= 35, 'waited');
  assert.equal(first.outcome, 'success');
  assert.equal(first.results[0]?.data, 'one');
  assert.equal(second.outcome, 'failure');
  assert.equal(second.error, 'max limit of pending messages');
  await engine.close();
});

test('log writes the script text to the injected logger and passes the message on', async () => {
  const lines: Array<[Record<string, unknown>, string]> = [];
  const logger = {
    info: (details: Record<string, unknown>, text: string) => lines.push([details, text]),
    warn: () => undefined,
  };
  const engine = createEngine({ services: testServices({ logger }) });
  await engine.load(
    chain('c1', [
      {
        id: 'l',
        type: 'log',
        configuration: { jsScript: 'return "seen " + msg.n + " from " + metadata.from;' },
      },
    ]),
  );
  const message = newMessage({ n: 7 }, { metadata: { from: 'test' } });
  const result = await engine.execute('c1', message);
  assert.equal(result.results[0]?.data, '{"n":7}');
  assert.deepEqual(lines, [[{ chainId: 'c1', nodeId: 'l', messageId: message.id }, 'seen 7 from test']]);
  await engine.close();
});
