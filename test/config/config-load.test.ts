import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { ConfigError, discoverConfigPath, parseConfigText } from '../../src/config/load.ts';
import { DEFAULT_CONFIG_TEXT } from '../../src/config/default-config.ts';

function problems(text: string, env: Record<string, string> = {}): string[] {
  try {
    parseConfigText(text, '/etc/app/config.yaml', env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.problems;
  }
  assert.fail('expected a ConfigError');
}

describe('config file discovery', () => {
  let dir: string;
  let home: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cfg-'));
    home = await mkdtemp(join(tmpdir(), 'home-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  });

  it('prefers --config, then ./config.yaml, ./config.yml, ./configs/config.yaml, ~/.agent-service/config.yaml', async () => {
    assert.deepEqual(await discoverConfigPath(undefined, dir, home), {
      path: join(dir, 'config.yaml'),
      exists: false,
    });
    await mkdir(join(home, '.agent-service'));
    await writeFile(join(home, '.agent-service', 'config.yaml'), '');
    assert.equal(
      (await discoverConfigPath(undefined, dir, home)).path,
      join(home, '.agent-service', 'config.yaml'),
    );
    await mkdir(join(dir, 'configs'));
    await writeFile(join(dir, 'configs', 'config.yaml'), '');
    assert.equal((await discoverConfigPath(undefined, dir, home)).path, join(dir, 'configs', 'config.yaml'));
    await writeFile(join(dir, 'config.yml'), '');
    assert.equal((await discoverConfigPath(undefined, dir, home)).path, join(dir, 'config.yml'));
    await writeFile(join(dir, 'config.yaml'), '');
    assert.equal((await discoverConfigPath(undefined, dir, home)).path, join(dir, 'config.yaml'));
    assert.deepEqual(await discoverConfigPath('other.yaml', dir, home), {
      path: join(dir, 'other.yaml'),
      exists: false,
    });
  });

  it('the default config text is valid and commented', async () => {
    const { config } = parseConfigText(DEFAULT_CONFIG_TEXT, join(dir, 'config.yaml'), {});
    assert.equal(config.server.host, '127.0.0.1');
    assert.equal(config.server.port, 9527);
    assert.equal(config.security.requireAuth, false);
    assert.equal(config.data.root_dir, join(dir, 'data'));
    assert.match(DEFAULT_CONFIG_TEXT, /^# /m);
    await writeFile(join(dir, 'x.yaml'), DEFAULT_CONFIG_TEXT);
    assert.equal(await readFile(join(dir, 'x.yaml'), 'utf8'), DEFAULT_CONFIG_TEXT);
  });
});

describe('config parsing and validation', () => {
  it('substitutes ${NAME} and ${NAME:-default} on the parsed tree', () => {
    const { config } = parseConfigText(
      'server:\n  host: ${HOST:-0.0.0.0}\n  port: 9000\nmodels:\n  providers:\n    p:\n      base_url: ${URL}\n      api_key: "${KEY}"\n',
      '/etc/app/config.yaml',
      { URL: 'http://127.0.0.1:1/v1', KEY: 'a: b # not yaml' },
    );
    assert.equal(config.server.host, '0.0.0.0');
    assert.equal(config.models.providers['p']?.base_url, 'http://127.0.0.1:1/v1');
    assert.equal(config.models.providers['p']?.api_key, 'a: b # not yaml');
  });

  it('an unset variable without a default names the key and line', () => {
    assert.deepEqual(problems('server:\n  port: 1\n  host: ${MISSING_HOST}\n'), [
      'server.host (line 3): environment variable MISSING_HOST is not set and has no default',
    ]);
  });

  it('reports every problem with its key path and file line', () => {
    assert.deepEqual(problems('server:\n  port: "x"\n  colour: red\nsecurity:\n  requireAuth: maybe\n'), [
      'server.port (line 2): expected number',
      'server.colour (line 3): unknown key',
      'security.requireAuth (line 5): expected boolean',
    ]);
  });

  it('refuses a __proto__ key anywhere and ids that are JavaScript member names', () => {
    assert.deepEqual(problems('models:\n  providers:\n    __proto__:\n      model: x\n'), [
      'models.providers.__proto__ (line 3): key "__proto__" is not allowed',
    ]);
    assert.deepEqual(problems('security:\n  users:\n    constructor: secret-password\n'), [
      'security.users.constructor (line 3): is a name reserved by JavaScript; choose another',
    ]);
  });

  it('reports a bad value and a bad provider reference', () => {
    const found = problems('server:\n  port: 70000\nmodels:\n  default_provider: nobody\n');
    assert.equal(found.length, 2);
    assert.match(found[0] ?? '', /^server\.port \(line 2\): /);
    assert.match(found[1] ?? '', /^models\.default_provider \(line 4\): names provider "nobody"/);
  });

  it('memory.embeddings is off when unset, takes defaults, and must name a configured provider', () => {
    const plain = parseConfigText('server:\n  port: 9000\n', '/etc/app/config.yaml', {});
    assert.equal(plain.config.memory.embeddings, undefined);
    const set = parseConfigText(
      'models:\n  providers:\n    openai:\n      base_url: https://api.openai.com/v1\n' +
        'memory:\n  embeddings:\n    provider: openai\n    model: text-embedding-3-small\n',
      '/etc/app/config.yaml',
      {},
    );
    assert.deepEqual(set.config.memory.embeddings, {
      provider: 'openai',
      model: 'text-embedding-3-small',
      batch_size: 64,
      timeout_ms: 30_000,
      query_timeout_ms: 2000,
      min_similarity: 0.5,
    });
    assert.match(
      problems('memory:\n  embeddings:\n    provider: nobody\n    model: m\n')[0] ?? '',
      /^memory\.embeddings\.provider \(line 3\): names provider "nobody", which is not configured/,
    );
    assert.match(
      problems(
        'models:\n  providers:\n    openai:\n      base_url: https://api.openai.com/v1\n' +
          'memory:\n  embeddings:\n    provider: openai\n    model: m\n    dimensions: 0\n    colour: red\n',
      ).join('\n'),
      /memory\.embeddings\.dimensions[\s\S]*colour/,
    );
  });

  it('reports a YAML syntax error with its line', () => {
    const found = problems('server:\n  port: [1\n');
    assert.match(found[0] ?? '', /^line \d+: YAML syntax error/);
  });

  it('resolves relative data paths against the config file folder', () => {
    const { config } = parseConfigText(
      'data:\n  root_dir: ./store\n  logs_dir: /var/log/x\n',
      '/etc/app/config.yaml',
      {},
    );
    assert.equal(config.data.root_dir, '/etc/app/store');
    assert.equal(config.data.logs_dir, '/var/log/x');
  });
});
