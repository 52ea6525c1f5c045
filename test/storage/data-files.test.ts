// Files the service keeps: private where they hold conversations, and no leftovers of cut writes.
import assert from 'node:assert/strict';
import { access, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { ConfigStore } from '../../src/config/config-store.ts';
import { loadConfigFile } from '../../src/config/load.ts';
import { createServices, type Services } from '../../src/services.ts';

describe('data files', () => {
  let dir: string;
  let services: Services | undefined;
  afterEach(async () => {
    await services?.close();
    services = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  async function start(): Promise<void> {
    const configPath = join(dir, 'config.yaml');
    const store = new ConfigStore(configPath, await loadConfigFile(configPath, {}), {});
    services = await createServices(store);
  }

  it('the session database and its WAL files are created 0600', async () => {
    dir = await mkdtemp(join(tmpdir(), 'data-files-'));
    await writeFile(join(dir, 'config.yaml'), 'data:\n  root_dir: ./data\n');
    await start();
    await services?.sessions.append(
      'agent:main:channel:api:scope:per_peer:x',
      {
        agentId: 'main',
        channel: 'api',
        scope: 'per_peer',
      },
      [{ role: 'user', content: 'hello' }],
    );
    const database = join(dir, 'data', 'agent-service.db');
    assert.equal((await stat(database)).mode & 0o777, 0o600);
    const wal = await stat(`${database}-wal`).catch(() => undefined);
    if (wal) assert.equal(wal.mode & 0o777, 0o600);
  });

  it('temp files of interrupted atomic writes are removed at start, and nothing else', async () => {
    dir = await mkdtemp(join(tmpdir(), 'data-files-'));
    await writeFile(join(dir, 'config.yaml'), 'data:\n  root_dir: ./data\n');
    const agentDir = join(dir, 'data', 'agents', 'main');
    await mkdir(agentDir, { recursive: true });
    const stale = [join(dir, '.config.yaml.0123456789ab.tmp'), join(agentDir, '.main.json.a1b2c3d4e5f6.tmp')];
    const kept = [
      join(dir, 'notes.tmp'),
      join(agentDir, '.main.json.tmp'),
      join(dir, 'data', 'x.0123456789ab.tmp'),
    ];
    for (const path of [...stale, ...kept]) await writeFile(path, 'partial');
    await start();
    for (const path of stale) await assert.rejects(access(path), `${path} was removed`);
    for (const path of kept) await access(path);
  });
});
