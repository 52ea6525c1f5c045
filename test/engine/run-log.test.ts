import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newMessage } from '../../src/engine/message.ts';
import {
  logMessage,
  MAX_LOGGED_DATA,
  MAX_LOGGED_METADATA_VALUE,
  MAX_NODE_LOGS,
  RunLogBuilder,
  RunLogStore,
  type NodeLog,
} from '../../src/engine/run-log.ts';

function nodeLog(nodeId: string, data = 'x'): NodeLog {
  const msg = logMessage(newMessage(data));
  return {
    nodeId,
    nodeType: 'jsTransform',
    inMsg: msg,
    outMsgs: [{ relationType: 'Success', msg }],
    relationTypes: ['Success'],
    startTs: 1,
    endTs: 2,
  };
}

describe('run log store and builder', () => {
  it('cuts data and metadata values, and says so', () => {
    const logged = logMessage(
      newMessage('d'.repeat(MAX_LOGGED_DATA + 10), { metadata: { big: 'm'.repeat(5000), small: 'ok' } }),
    );
    assert.equal(logged.data.length, MAX_LOGGED_DATA);
    assert.equal(logged.metadata['big']?.length, MAX_LOGGED_METADATA_VALUE);
    assert.equal(logged.metadata['small'], 'ok');
    assert.equal(logged.truncated, true);
    assert.equal(logMessage(newMessage('short')).truncated, undefined);
  });

  it('a finished log is a copy that later nodes cannot change', () => {
    const builder = new RunLogBuilder('c');
    builder.add(nodeLog('a'));
    const { run } = builder.finish('success', undefined);
    builder.add(nodeLog('late'));
    assert.deepEqual(
      run.logs.map((log) => log.nodeId),
      ['a'],
    );
    assert.equal(run.droppedLogs, 0);
    assert.equal(builder.accepting, false);
  });

  it('counts the node entries past the per-run limit', () => {
    const builder = new RunLogBuilder('c');
    for (let n = 0; n < MAX_NODE_LOGS + 7; n += 1) {
      if (builder.accepting) builder.add(nodeLog(`n${n}`));
      else builder.skip();
    }
    const { run } = builder.finish('success', undefined);
    assert.equal(run.logs.length, MAX_NODE_LOGS);
    assert.equal(run.droppedLogs, 7);
  });

  it('evicts the oldest runs past the byte budget, keeping the newest', () => {
    const store = new RunLogStore(100, 50_000);
    const ids: string[] = [];
    for (let n = 0; n < 10; n += 1) {
      const builder = new RunLogBuilder(`chain-${n}`);
      builder.add(nodeLog('a', 'y'.repeat(10_000)));
      const entry = builder.finish('success', undefined);
      ids.push(entry.run.id);
      store.add(entry);
    }
    const kept = store.list().map((run) => run.id);
    assert.ok(kept.length >= 1 && kept.length <= 3, `kept ${kept.length}`);
    assert.equal(kept[0], ids[9], 'newest first');
    assert.equal(store.get(ids[0] as string), undefined, 'the oldest went first');
    assert.equal(store.clear(), kept.length);
    assert.deepEqual(store.list(), []);
  });

  it('keeps at most `limit` runs', () => {
    const store = new RunLogStore(3);
    for (let n = 0; n < 5; n += 1) store.add(new RunLogBuilder('c').finish('success', undefined));
    assert.equal(store.list().length, 3);
    assert.equal(store.list('other').length, 0);
  });
});
