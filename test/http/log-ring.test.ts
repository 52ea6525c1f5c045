import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LogRing, type LogLine } from '../../src/http/log-ring.ts';

const line = (level: number, msg: string, extra: Record<string, unknown> = {}): string =>
  `${JSON.stringify({ level, time: 1000, pid: 1, hostname: 'h', msg, ...extra })}\n`;

describe('LogRing', () => {
  it('keeps the newest lines in order once full, with their fields and level names', () => {
    const ring = new LogRing(3);
    for (let i = 1; i <= 5; i += 1) ring.write(line(i === 4 ? 40 : 30, `line ${i}`, { n: i }));
    const lines = ring.recent();
    assert.deepEqual(
      lines.map((l) => [l.seq, l.msg, l.level, l.fields]),
      [
        [3, 'line 3', 'info', { n: 3 }],
        [4, 'line 4', 'warn', { n: 4 }],
        [5, 'line 5', 'info', { n: 5 }],
      ],
    );
    assert.deepEqual(
      ring.recent({ level: 'warn' }).map((l) => l.seq),
      [4],
    );
    assert.deepEqual(
      ring.recent({ after: 3, limit: 1 }).map((l) => l.seq),
      [5],
    );
  });

  it('joins a line written in pieces and keeps text that is not JSON as the message', () => {
    const ring = new LogRing();
    const whole = line(50, 'split');
    ring.write(whole.slice(0, 10));
    assert.equal(ring.recent().length, 0);
    ring.write(`${whole.slice(10)}plain text\n`);
    const lines = ring.recent();
    assert.deepEqual(
      lines.map((l) => [l.msg, l.level]),
      [
        ['split', 'error'],
        ['plain text', 'info'],
      ],
    );
  });

  it('tells followers about each new line until they stop', () => {
    const ring = new LogRing(2);
    const seen: LogLine[] = [];
    const stop = ring.follow((l) => seen.push(l));
    ring.write(line(30, 'a') + line(30, 'b'));
    stop();
    ring.write(line(30, 'c'));
    assert.deepEqual(
      seen.map((l) => l.msg),
      ['a', 'b'],
    );
    assert.deepEqual(
      ring.recent().map((l) => l.msg),
      ['b', 'c'],
    );
  });
});
