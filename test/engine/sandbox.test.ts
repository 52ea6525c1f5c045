import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newMessage } from '../../src/engine/message.ts';
import { loadQuickJs } from '../../src/engine/sandbox/quickjs-loader.ts';
import { ScriptSandbox } from '../../src/engine/sandbox/sandbox.ts';
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
  // Promise jobs are never run, so each call keeps its array alive in the runtime.
  const sandbox = await ScriptSandbox.create(
    '(input) => { const kept = new Array(2e5).fill(1); Promise.resolve().then(() => kept.length); return "ok"; }',
    { timeoutMs: 5000, memoryBytes: 4 << 20 },
  );
  const outcomes = Array.from({ length: 200 }, () => {
    try {
      return sandbox.call('x');
    } catch (error) {
      return error instanceof Error ? error.message : 'unexpected';
    }
  });
  const firstLimit = outcomes.indexOf('script exceeded memory limit');
  assert.ok(firstLimit > 0, 'a call hit the limit');
  outcomes.forEach((outcome, index) => {
    if (outcome !== 'ok')
      assert.equal(outcomes[index + 1] ?? 'ok', 'ok', 'the next call ran on a fresh runtime');
  });
  sandbox.dispose();
});

test('each message starts from the same globals: what a script sets on globalThis is gone at the next', async () => {
  const engine = createEngine();
  const script =
    'globalThis.leak = (globalThis.leak || 0) + 1; return {msg: {n: globalThis.leak}, metadata, msgType};';
  await engine.load(chain('c1', [{ id: 't', type: 'jsTransform', configuration: { jsScript: script } }]));
  for (let run = 0; run < 3; run += 1) {
    const result = await engine.execute('c1', newMessage({}));
    assert.deepEqual(JSON.parse(result.results[0]?.data ?? ''), { n: 1 }, `run ${run + 1}`);
  }
  await engine.close();
});

test('a script cannot keep state on its own function through arguments.callee', async () => {
  const engine = createEngine();
  const script =
    'const self = arguments.callee; const seen = String(self.count); self.count = 1; return {msg: {seen}, metadata, msgType};';
  await engine.load(chain('c1', [{ id: 't', type: 'jsTransform', configuration: { jsScript: script } }]));
  // Scripts run in strict mode, where reading arguments.callee is itself an error.
  for (let run = 0; run < 2; run += 1) {
    const result = await engine.execute('c1', newMessage({}));
    assert.equal(result.outcome, 'failure', `run ${run + 1}`);
    assert.match(result.error ?? '', /TypeError/, `run ${run + 1}`);
  }
  await engine.close();
});

// Each script reports what it finds, then tries to leave something for the next call.
const leftovers: Array<[string, string, string]> = [
  ['a global property', 'String(globalThis.leak)', 'globalThis.leak = input;'],
  ['an undeclared assignment', 'typeof leak', 'leak = input;'],
  [
    'a global with a symbol key',
    "String(globalThis[Symbol.for('leak')])",
    "globalThis[Symbol.for('leak')] = input;",
  ],
  ['a var of an indirect eval', 'typeof leak', "(0, eval)('var leak = 1');"],
  [
    'a non-configurable global',
    'String(globalThis.leak)',
    "Object.defineProperty(globalThis, 'leak', { value: input });",
  ],
  ['a new prototype of the global', 'typeof leak', 'Object.setPrototypeOf(globalThis, { leak: input });'],
  [
    'a non-extensible global',
    'String(Object.isExtensible(globalThis))',
    'Object.preventExtensions(globalThis);',
  ],
  ['a built-in prototype', 'String([].leak)', 'Array.prototype.leak = input;'],
  ['a built-in function', "String(JSON.parse('1'))", 'JSON.parse = () => input;'],
  ['a property of a built-in function', 'String(Math.max.leak)', 'Math.max.leak = input;'],
  [
    'a prototype only syntax reaches',
    'String(Object.getPrototypeOf(function* () {}).prototype.leak)',
    'Object.getPrototypeOf(function* () {}).prototype.leak = input;',
  ],
];

for (const [what, read, leave] of leftovers) {
  test(`a call cannot leave ${what} for the next call`, async () => {
    const sandbox = await ScriptSandbox.create(
      `(input) => { const found = ${read}; try { ${leave} } catch {} return found; }`,
      { timeoutMs: 1000, memoryBytes: 8 << 20 },
    );
    const first = sandbox.call('left');
    assert.notEqual(first, 'left');
    assert.deepEqual([sandbox.call('left'), sandbox.call('left')], [first, first]);
    sandbox.dispose();
  });
}

test('frozen built-ins still let a script give its own objects a name, a message or a toString', async () => {
  const sandbox = await ScriptSandbox.create(
    `(input) => {
      const error = new Error(input);
      error.name = 'Custom';
      error.message = input + '!';
      const object = {};
      object.toString = () => 'own';
      class Failure extends Error { constructor() { super('m'); this.name = 'Failure'; } }
      return [String(error), String(object), String(new Failure()), [1, 2].map((n) => n * 2).join()].join('|');
    }`,
    { timeoutMs: 1000, memoryBytes: 8 << 20 },
  );
  assert.equal(sandbox.call('x'), 'Custom: x!|own|Failure: m|2,4');
  sandbox.dispose();
});

test('a script body that closes its function early is refused when the chain loads', async () => {
  const engine = createEngine();
  // QuickJS pastes the body into source text: this would hand back a function with a private counter.
  const script =
    'return {msg: {n: ++n}, metadata, msgType}; }); let n = 0; (function () { return {msg: {n: ++n}};';
  await assert.rejects(
    engine.load(chain('c1', [{ id: 't', type: 'jsTransform', configuration: { jsScript: script } }])),
    { message: 'rule chain "c1": node "t": SyntaxError: the script must be the body of one function' },
  );
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
