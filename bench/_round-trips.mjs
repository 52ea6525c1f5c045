// Preloaded into a service by the cluster benchmarks when BENCH_ROUND_TRIPS=1 (node --import): counts
// the process's PostgreSQL queries (by statement, parameters folded) and Redis commands (by
// connection role and command). On SIGUSR2 it writes the counts so far to
// <tmpdir>/agent-service-round-trips-<pid>.json and starts again from zero (bench/_shared.ts,
// roundTrips). Never loaded by the service itself.
import { renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The service's own copies of the drivers (CommonJS, shared with its imports through the cache).
const require = createRequire(import.meta.url);
const modules = join(import.meta.dirname, '..', 'node_modules');
let counts = { pg: {}, redis: {} };
const bump = (table, key) => {
  table[key] = (table[key] || 0) + 1;
};
const shape = (text) =>
  String(text)
    .replace(/\s+/g, ' ')
    .replace(/\$\d+/g, '$')
    .replace(/(\(\$(, \$)*\)(, )?)+/g, '(...)')
    .slice(0, 140);

const pg = require(join(modules, 'pg'));
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (config, ...rest) {
  const text = typeof config === 'string' ? config : config && config.text;
  if (text) bump(counts.pg, shape(text));
  return query.call(this, config, ...rest);
};

const { Redis } = require(join(modules, 'ioredis'));
const sendCommand = Redis.prototype.sendCommand;
Redis.prototype.sendCommand = function (command, stream) {
  const role = String(this.options.connectionName || '')
    .split(':')
    .pop();
  const script =
    command.name === 'evalsha' || command.name === 'eval' ? ` ${String(command.args[0]).slice(0, 8)}` : '';
  bump(counts.redis, `${role} ${command.name}${script}`);
  return sendCommand.call(this, command, stream);
};

process.on('SIGUSR2', () => {
  const path = join(tmpdir(), `agent-service-round-trips-${process.pid}.json`);
  writeFileSync(`${path}.tmp`, JSON.stringify(counts));
  renameSync(`${path}.tmp`, path);
  counts = { pg: {}, redis: {} };
});
