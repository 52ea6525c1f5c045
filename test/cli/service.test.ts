import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BIN, cli } from './cli-harness.ts';

describe('agent-service service (systemd unit)', () => {
  let home: string;
  let project: string;
  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'cli-service-'));
    project = join(home, 'my project');
    await mkdir(project, { recursive: true });
    await writeFile(join(project, 'config.yaml'), 'data:\n  root_dir: ./store\n');
  });
  after(() => rm(home, { recursive: true, force: true }));

  it('--dry-run prints a unit with absolute node, program, config and data paths and writes nothing', async () => {
    const result = await cli(['service', 'install', '--dry-run', '--config', 'config.yaml'], home, {
      cwd: project,
    });
    assert.equal(result.code, 0, result.err);
    const unitPath = join(home, '.config', 'systemd', 'user', 'agent-service.service');
    assert.equal(result.err, `# would write ${unitPath}\n`);
    const exec = `ExecStart=${process.execPath} ${BIN} serve --config "${project}/config.yaml" --data "${project}/store"`;
    assert.ok(result.out.includes(`${exec}\n`), result.out);
    assert.match(result.out, /^WantedBy=default\.target$/m);
    assert.match(result.out, /^Restart=on-failure$/m);
    assert.equal(existsSync(unitPath), false);
    const system = await cli(
      ['service', 'install', '--dry-run', '--system', '--user', 'agent', '--name', 'agents-prod'],
      home,
      { cwd: project },
    );
    assert.equal(system.err, '# would write /etc/systemd/system/agents-prod.service\n');
    assert.match(system.out, /^User=agent$/m);
    assert.match(system.out, /^WantedBy=multi-user\.target$/m);
  });

  it('install writes the unit atomically and explains it; without systemd it says so, and start fails clearly', async () => {
    const result = await cli(['service', 'install', '-c', 'config.yaml'], home, { cwd: project });
    assert.equal(result.code, 0, result.err);
    const unitPath = join(home, '.config', 'systemd', 'user', 'agent-service.service');
    assert.match(result.out, new RegExp(`wrote ${unitPath}`));
    assert.match(result.out, /config: .*my project\/config\.yaml\n {2}data: {3}.*my project\/store\n/);
    assert.equal((await stat(unitPath)).mode & 0o777, 0o644);
    assert.match(await readFile(unitPath, 'utf8'), /^ExecStart=.* serve --config /m);
    if (!existsSync('/run/systemd/system')) {
      assert.match(
        result.err,
        /systemd is not running on this machine: the unit was written but not enabled/,
      );
      const started = await cli(['service', 'start'], home);
      assert.equal(started.code, 1);
      assert.equal(
        started.err,
        'error: systemd is not running on this machine; run the server with: agent-service serve\n',
      );
    }
    const removed = await cli(['service', 'uninstall'], home);
    assert.equal(removed.code, 0, removed.err);
    assert.equal(existsSync(unitPath), false);
    const again = await cli(['service', 'uninstall'], home);
    assert.equal(again.code, 1);
    assert.match(again.err, /no unit at /);
  });
});
