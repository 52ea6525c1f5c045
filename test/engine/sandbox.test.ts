import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newMessage } from '../../src/engine/message.ts';
import { loadQuickJs } from '../../src/engine/quickjs-loader.ts';
import { ScriptSandbox } from '../../src/engine/sandbox.ts';
import { chain, createEngine, testServices } from './helpers.ts';

// Each hostile script runs only for a message with `evil` set, so the same node can then be
// shown to still work for an ordinary message.
const hostile: Array<[string, string, RegExp]> = [
  ['an endless loop', 'while (true) {}', /^script timed out after 200 ms$/],
  [
    'a huge allocation',
    'let a = []; while (true) a.push(new Array(1e6).fill(1));',
    /^script exceeded memory limit$/,
  ],
  ['process.exit()', 'process.exit(1);', /^ReferenceError: 'process' is not defined$/],
  [
    "require('fs')",
    "require('fs').readFileSync('/etc/passwd');",
    /^ReferenceError: 'require' is not defined$/,
  ],
  ['fetch()', "fetch('http://127.0.0.1:1/');", /^ReferenceError: 'fetch' is not defined$/],
  [
    'a Function constructor escape',
    "globalThis.constructor.constructor('return process')().exit(1);",
    /^ReferenceError: 'process' is not defined$/,
  ],
  ['setTimeout', 'setTimeout(() => {}, 1);', /^ReferenceError: 'setTimeout' is not defined$/],
  ['endless recursion', 'const f = () => f() + 1; f();', /^InternalError: stack overflow$/],
];

for (const [name, script, expected] of hostile) {
  test(`a script trying ${name} fails its message and the node keeps working`, async () => {
    // Only the loop case is about the time limit; the others get time to reach their own failure
    // even on a busy machine.
    const scriptTimeoutMs = name === 'an endless loop' ? 200 : 2000;
    const engine = createEngine({ services: testServices({ scriptTimeoutMs }) });
    await engine.load(
      chain('c1', [
        {
          id: 'f',
          type: 'jsFilter',
          configuration: { jsScript: `if (msg.evil) { ${script} } return msg.n > 1;` },
        },
      ]),
    );
    const bad = await engine.execute('c1', newMessage({ evil: true }));
    assert.equal(bad.outcome, 'failure');
    assert.match(bad.error ?? '', expected);
    assert.equal(bad.results[0]?.metadata['errorMsg'], bad.error);
    const { events, onEvent } = {
      events: [] as string[],
      onEvent: (event: { type: string }) => events.push(event.type),
    };
    const good = await engine.execute('c1', newMessage({ n: 2 }), { onEvent });
    assert.equal(good.outcome, 'success');
    assert.deepEqual(events, ['node-start', 'node-end', 'run-end']);
    await engine.close();
  });
}

test('repeated huge allocations are stopped quickly and do not grow the shared heap', async () => {
  const { heap } = await loadQuickJs();
  assert.equal(heap.enforced, true, 'the heap-growth hook found its import in this QuickJS build');
  const sandbox = await ScriptSandbox.create(
    '(input) => { if (input === "ok") return "fine"; const a = []; while (true) a.push(new Array(1e6).fill(1)); }',
    { timeoutMs: 5000, memoryBytes: 16 << 20 },
  );
  const sizes: number[] = [];
  const started = Date.now();
  for (let attempt = 0; attempt < 8; attempt += 1) {
    assert.throws(() => sandbox.call('x'), { name: 'ScriptError', message: 'script exceeded memory limit' });
    sizes.push(heap.size());
  }
  assert.ok(Date.now() - started < 5000, `eight attempts took ${Date.now() - started} ms`);
  assert.equal(sizes.at(-1), sizes[1], `the heap stopped growing: ${sizes.join(', ')}`);
  assert.equal(sandbox.call('ok'), 'fine');
  sandbox.dispose();
});

test('memory a script keeps between calls beyond its budget is dropped with the runtime', async () => {
  const sandbox = await ScriptSandbox.create(
    '(input) => { globalThis.kept = globalThis.kept || []; kept.push(new Array(2e5).fill(1)); return String(kept.length); }',
    { timeoutMs: 5000, memoryBytes: 4 << 20 },
  );
  const outcomes = Array.from({ length: 200 }, () => {
    try {
      return sandbox.call('x');
    } catch (error) {
      return error instanceof Error ? error.message : 'unexpected';
    }
  });
  const counts = outcomes.filter((outcome) => /^\d+$/.test(outcome)).map(Number);
  // 2e5 slots are about 1.6 MB: the runtime never keeps much more than its 4 MB budget for long.
  assert.ok(Math.max(...counts) < 40, `kept at most ${Math.max(...counts)} arrays`);
  const firstLimit = outcomes.indexOf('script exceeded memory limit');
  assert.ok(firstLimit > 0, 'a call hit the limit');
  assert.equal(outcomes[firstLimit + 1], '1', 'the next call ran on a fresh runtime');
  sandbox.dispose();
});

test('a script is compiled once per node: its globals persist between messages until a limit resets it', async () => {
  const engine = createEngine();
  const script =
    'if (msg.spin) { while (true) {} } globalThis.count = (globalThis.count || 0) + 1; return {msg: globalThis.count, metadata, msgType};';
  await engine.load(chain('c1', [{ id: 't', type: 'jsTransform', configuration: { jsScript: script } }]));
  const count = async (): Promise<string | undefined> =>
    (await engine.execute('c1', newMessage({}))).results[0]?.data;
  assert.equal(await count(), '1');
  assert.equal(await count(), '2');
  const spun = await engine.execute('c1', newMessage({ spin: true }));
  assert.equal(spun.error, 'script timed out after 200 ms');
  assert.equal(await count(), '1', 'the sandbox was rebuilt after the timeout');
  await engine.close();
});

test('import() never delivers a module: there is no loader and no job loop', async () => {
  const engine = createEngine();
  const script =
    "let got = 'nothing'; import('fs').then(() => { got = 'module'; }, () => { got = 'error'; }); return {msg: got, metadata, msgType};";
  await engine.load(chain('c1', [{ id: 't', type: 'jsTransform', configuration: { jsScript: script } }]));
  assert.equal((await engine.execute('c1', newMessage({}))).results[0]?.data, 'nothing');
  assert.equal((await engine.execute('c1', newMessage({}))).results[0]?.data, 'nothing');
  await engine.close();
});

test('the time limit comes from services.scriptTimeoutMs', async () => {
  const engine = createEngine({ services: testServices({ scriptTimeoutMs: 50 }) });
  await engine.load(
    chain('c1', [{ id: 'f', type: 'jsFilter', configuration: { jsScript: 'while (true) {}' } }]),
  );
  const started = Date.now();
  const result = await engine.execute('c1', newMessage({}));
  assert.equal(result.error, 'script timed out after 50 ms');
  assert.ok(Date.now() - started < 1000);
  await engine.close();
});

test('a script thrown value becomes the errorMsg', async () => {
  const engine = createEngine();
  await engine.load(
    chain('c1', [
      { id: 'f', type: 'jsFilter', configuration: { jsScript: 'throw new TypeError("no " + msg.what);' } },
    ]),
  );
  const result = await engine.execute('c1', newMessage({ what: 'way' }));
  assert.equal(result.error, 'TypeError: no way');
  await engine.close();
});

test('an endless loop at the top level of a script is stopped at load', async () => {
  const sandbox = ScriptSandbox.create('(() => { while (true) {} })()', {
    timeoutMs: 50,
    memoryBytes: 8 << 20,
  });
  await assert.rejects(sandbox, { name: 'ScriptError', message: 'script timed out after 50 ms' });
});

test('a closed sandbox refuses calls instead of rebuilding', async () => {
  const sandbox = await ScriptSandbox.create('(input) => input.toUpperCase()', {
    timeoutMs: 50,
    memoryBytes: 8 << 20,
  });
  assert.equal(sandbox.call('abc'), 'ABC');
  sandbox.dispose();
  assert.throws(() => sandbox.call('abc'), { name: 'ScriptError', message: 'script sandbox is closed' });
});

test('transform keeps text data as text and reads metadata values as strings', async () => {
  const engine = createEngine();
  await engine.load(
    chain('c1', [
      {
        id: 't',
        type: 'jsTransform',
        configuration: {
          jsScript:
            'metadata.count = 3; metadata.flag = true; return {msg: msg + "!", metadata, msgType: "OUT"};',
        },
      },
    ]),
  );
  const result = await engine.execute('c1', newMessage('hi\nthere', { metadata: { a: 'b' } }));
  const reply = result.results[0];
  assert.equal(reply?.data, 'hi\nthere!');
  assert.equal(reply?.dataType, 'TEXT');
  assert.equal(reply?.type, 'OUT');
  assert.deepEqual(reply?.metadata, { a: 'b', count: '3', flag: 'true' });
  await engine.close();
});
