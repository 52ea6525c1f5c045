// The chaos run (chaos-run.ts) in small, inside npm test: three clustered instances, turns over
// HTTP, Slack (Events API) and Telegram with 20% of model calls faulted, a kill -9 during turns, a
// Redis restart and a PostgreSQL outage. `npm run chaos` runs the full size.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runChaos } from './chaos-run.ts';

describe('chaos run (small)', () => {
  it('no message lost or answered twice, nothing stuck, the killed conversations answered within 10 s', async () => {
    const figures = await runChaos({
      turns: 60,
      concurrency: 20,
      faultRate: 0.2,
      databaseOutageMs: 3_000,
      turnTimeoutMs: 15_000,
    });
    process.stdout.write(`# chaos figures ${JSON.stringify(figures)}\n`);
    assert.equal(figures.turns, 60);
    assert.equal(figures.answered, 60, 'every turn ended with an answer or a visible error');
    assert.equal(figures.lost, 0, 'acknowledged messages without an answer');
    assert.equal(figures.duplicates, 0, 'messages answered twice');
    assert.equal(figures.stuck, 0, 'conversations not answered after the run');
    assert.ok(
      figures.afterKillMs >= 0 && figures.afterKillMs < 10_000,
      `after the kill: ${figures.afterKillMs} ms`,
    );
  });
});
