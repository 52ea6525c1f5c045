// Skills over REST: CRUD in both scopes, shadowing, pagination, errors, zip uploads (and hostile
// archives refused with nothing written), copies between scopes.
import assert from 'node:assert/strict';
import { access, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { agentDefinition } from '../fakes/builders.ts';
import { multipart, skillFile, text, zip } from './skill-fixtures.ts';

describe('skills API', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  const request = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) =>
    t.app.inject({
      method,
      url: `/api/v1${url}`,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });

  async function createAgent(id: string): Promise<void> {
    const response = await request('POST', '/agents', agentDefinition(id));
    assert.equal(response.statusCode, 201, response.body);
  }

  async function upload(url: string, archive: Uint8Array, fields: Record<string, string> = {}) {
    const body = multipart([
      ...Object.entries(fields).map(([name, data]) => ({ name, data })),
      { name: 'file', filename: 'skills.zip', data: archive },
    ]);
    return t.app.inject({
      method: 'POST',
      url: `/api/v1${url}`,
      payload: body.payload,
      headers: body.headers,
    });
  }

  async function globalEntries(): Promise<string[]> {
    return readdir(t.services.skillsDir).catch(() => []);
  }

  before(async () => {
    await createAgent('helper');
    await createAgent('other');
  });

  it('creates, reads, updates and deletes a global skill, stored as SKILL.md with front matter', async () => {
    const created = await request('POST', '/skills', {
      name: 'pdf-tools',
      description: 'Work with PDF files',
      content: '# PDF\n\nUse pdftotext.\n',
      scope: 'global',
    });
    assert.equal(created.statusCode, 201, created.body);
    assert.deepEqual(created.json(), {
      name: 'pdf-tools',
      description: 'Work with PDF files',
      content: '# PDF\n\nUse pdftotext.\n',
      scope: 'global',
    });
    const onDisk = await readFile(join(t.services.skillsDir, 'pdf-tools', 'SKILL.md'), 'utf8');
    assert.match(onDisk, /^---\nname: pdf-tools\ndescription: Work with PDF files\n---\n\n# PDF/);

    assert.equal((await request('GET', '/skills/pdf-tools')).json().content, '# PDF\n\nUse pdftotext.\n');
    const updated = await request('PUT', '/skills/pdf-tools', { description: 'PDFs', content: 'v2' });
    assert.equal(updated.statusCode, 200, updated.body);
    assert.deepEqual(updated.json(), {
      name: 'pdf-tools',
      description: 'PDFs',
      content: 'v2',
      scope: 'global',
    });
    assert.equal((await request('GET', '/skills/pdf-tools?scope=global')).json().description, 'PDFs');

    const removed = await request('DELETE', '/skills/pdf-tools?scope=global');
    assert.deepEqual(removed.json(), { success: true, message: 'skill "pdf-tools" deleted' });
    assert.equal((await request('GET', '/skills/pdf-tools')).statusCode, 404);
    assert.deepEqual(await globalEntries(), []);
  });

  it('agent skills live in the workspace skills/ folder and answer 404 for an unknown agent', async () => {
    const created = await request('POST', '/agents/helper/skills', {
      name: 'notes',
      description: 'Take notes',
      content: 'Write notes to notes.md',
    });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.json().scope, 'local');
    const workspace = await t.services.workspace('helper');
    await access(join(workspace, 'skills', 'notes', 'SKILL.md'));

    const listed = (await request('GET', '/agents/helper/skills')).json();
    assert.deepEqual(Object.keys(listed).sort(), ['data', 'page', 'size', 'total']);
    assert.deepEqual(
      listed.data.map((skill: { name: string }) => skill.name),
      ['notes'],
    );
    assert.equal((await request('GET', '/agents/other/skills')).json().total, 0);
    const put = await request('PUT', '/agents/helper/skills/notes', { content: 'Write to log.md' });
    assert.deepEqual(put.json(), {
      name: 'notes',
      description: 'Take notes',
      content: 'Write to log.md',
      scope: 'local',
    });

    for (const url of ['/agents/ghost/skills', '/agents/ghost/skills/notes']) {
      const response = await request('GET', url);
      assert.equal(response.statusCode, 404);
      assert.deepEqual(response.json(), { error: 'agent "ghost" not found' });
    }
    const missing = await request('GET', '/agents/helper/skills/nope');
    assert.deepEqual([missing.statusCode, missing.json()], [404, { error: 'skill "nope" not found' }]);
    const deleted = await request('DELETE', '/agents/helper/skills/notes');
    assert.equal(deleted.statusCode, 200);
    assert.equal((await request('DELETE', '/agents/helper/skills/notes')).statusCode, 404);
  });

  it('refuses a duplicate name (409), bad names and bodies (400)', async () => {
    const body = { name: 'dup', description: 'd', content: 'c' };
    assert.equal((await request('POST', '/skills', body)).statusCode, 201);
    const again = await request('POST', '/skills', body);
    assert.deepEqual([again.statusCode, again.json()], [409, { error: 'skill "dup" already exists' }]);
    // The same name in another scope is fine.
    assert.equal((await request('POST', '/agents/helper/skills', body)).statusCode, 201);

    const badName = await request('POST', '/skills', { ...body, name: '../evil' });
    assert.equal(badName.statusCode, 400);
    assert.match(badName.json().error, /^body\.name: /);
    const noContent = await request('POST', '/skills', { name: 'empty', description: 'd', content: '' });
    assert.equal(noContent.statusCode, 400);
    const huge = await request('POST', '/skills', {
      name: 'huge',
      description: 'd',
      content: 'x'.repeat(1_100_000),
    });
    assert.deepEqual(
      [huge.statusCode, huge.json()],
      [413, { error: 'request body is too large (limit 1048576 bytes)' }],
    );
    const local = await request('GET', '/skills?scope=local');
    assert.deepEqual(
      [local.statusCode, local.json()],
      [400, { error: 'agentId is required when scope is "local"' }],
    );
    const rename = await request('PUT', '/skills/dup', { name: 'other', content: 'c' });
    assert.equal(rename.statusCode, 400);
    assert.equal((await request('PUT', '/skills/absent', { content: 'c' })).statusCode, 404);
    await request('DELETE', '/skills/dup');
    await request('DELETE', '/agents/helper/skills/dup');
  });

  it('lists with scope all: local shadows global; pagination envelope is exact', async () => {
    await request('POST', '/skills', { name: 'alpha', description: 'global alpha', content: 'g' });
    await request('POST', '/skills', { name: 'beta', description: 'global beta', content: 'g' });
    await request('POST', '/agents/helper/skills', {
      name: 'alpha',
      description: 'local alpha',
      content: 'l',
    });

    const all = (await request('GET', '/skills?agentId=helper')).json();
    assert.deepEqual(
      all.data.map((skill: { name: string; scope: string }) => `${skill.name}:${skill.scope}`),
      ['alpha:local', 'beta:global'],
    );
    assert.equal((await request('GET', '/skills/alpha?agentId=helper')).json().description, 'local alpha');
    assert.equal((await request('GET', '/skills/alpha')).json().description, 'global alpha');
    const globalOnly = (await request('GET', '/skills?scope=global&agentId=helper')).json();
    assert.equal(globalOnly.data[0].description, 'global alpha');
    const localOnly = (await request('GET', '/skills?scope=local&agentId=helper')).json();
    assert.deepEqual(
      localOnly.data.map((skill: { name: string }) => skill.name),
      ['alpha'],
    );

    const page = (await request('GET', '/skills?agentId=helper&page=2&size=1')).json();
    assert.deepEqual(page, {
      data: [{ name: 'beta', description: 'global beta', content: 'g', scope: 'global' }],
      total: 2,
      page: 2,
      size: 1,
    });
    assert.equal((await request('GET', '/skills?size=0')).statusCode, 400);
    assert.equal((await request('GET', '/skills?scope=local&agentId=ghost')).statusCode, 404);

    // Local delete through /skills needs the agent; the global one stays.
    assert.equal((await request('DELETE', '/skills/alpha?scope=local&agentId=helper')).statusCode, 200);
    assert.equal((await request('GET', '/skills/alpha?agentId=helper')).json().scope, 'global');
    await request('DELETE', '/skills/alpha');
    await request('DELETE', '/skills/beta');
  });

  it('skips a skill folder whose SKILL.md is missing or broken', async () => {
    await request('POST', '/skills', { name: 'good', description: 'ok', content: 'c' });
    const { mkdir, writeFile } = await import('node:fs/promises');
    await mkdir(join(t.services.skillsDir, 'no-file'));
    await mkdir(join(t.services.skillsDir, 'broken'));
    await writeFile(join(t.services.skillsDir, 'broken', 'SKILL.md'), '---\nname: [unclosed\n---\nbody');
    const listed = (await request('GET', '/skills')).json();
    assert.deepEqual(
      listed.data.map((skill: { name: string }) => skill.name),
      ['good'],
    );
    assert.equal((await request('GET', '/skills/broken')).statusCode, 404);
    const { rm } = await import('node:fs/promises');
    await rm(join(t.services.skillsDir, 'no-file'), { recursive: true });
    await rm(join(t.services.skillsDir, 'broken'), { recursive: true });
    await request('DELETE', '/skills/good');
  });

  it('uploads a zip of skill folders with their extra files', async () => {
    const archive = zip({
      'pdf/SKILL.md': text(skillFile('pdf', 'PDF helper', '# PDF')),
      'pdf/scripts/extract.py': text('print(1)'),
      'csv/SKILL.md': text(skillFile('csv', 'CSV helper', '# CSV')),
    });
    const response = await upload('/skills/upload', archive, { scope: 'global' });
    assert.equal(response.statusCode, 201, response.body);
    assert.deepEqual(
      response
        .json()
        .map((skill: { name: string; scope: string }) => `${skill.name}:${skill.scope}`)
        .sort(),
      ['csv:global', 'pdf:global'],
    );
    assert.equal(
      await readFile(join(t.services.skillsDir, 'pdf', 'scripts', 'extract.py'), 'utf8'),
      'print(1)',
    );
    const again = await upload('/skills/upload', archive);
    assert.deepEqual([again.statusCode, again.json()], [409, { error: 'skill "pdf" already exists' }]);
    await request('DELETE', '/skills/pdf');
    await request('DELETE', '/skills/csv');
  });

  it('uploads a single root SKILL.md to an agent, named by its front matter', async () => {
    const archive = zip({ 'SKILL.md': text(skillFile('solo', 'One file', 'Do it.')) });
    const response = await upload('/agents/helper/skills/upload', archive);
    assert.equal(response.statusCode, 201, response.body);
    assert.deepEqual(response.json(), [
      { name: 'solo', description: 'One file', content: 'Do it.', scope: 'local' },
    ]);
    assert.equal((await request('GET', '/agents/helper/skills/solo')).json().content, 'Do it.');
    const viaGlobalRoute = await upload(
      '/skills/upload',
      zip({ 'SKILL.md': text(skillFile('solo2', 'x', 'y')) }),
      {
        scope: 'local',
        agentId: 'other',
      },
    );
    assert.equal(viaGlobalRoute.statusCode, 201, viaGlobalRoute.body);
    assert.equal((await request('GET', '/agents/other/skills/solo2')).statusCode, 200);
    assert.equal((await upload('/agents/ghost/skills/upload', archive)).statusCode, 404);
    await request('DELETE', '/agents/helper/skills/solo');
    await request('DELETE', '/agents/other/skills/solo2');
  });

  it('refuses each hostile or malformed archive with a 400 and writes nothing', async () => {
    const good = text(skillFile('ok', 'fine', 'body'));
    // Each under the ratio floor, together past 50 MB.
    const manyFiles = Object.fromEntries(
      Array.from({ length: 60 }, (_, index) => [`ok/part-${index}.bin`, new Uint8Array(900 * 1024)]),
    );
    const link = [text('/etc/passwd'), { os: 3, attrs: (0o120777 << 16) >>> 0 }] as const;
    const cases: Array<[string, Uint8Array, RegExp]> = [
      [
        'dot-dot',
        zip({ 'ok/SKILL.md': good, '../x/SKILL.md': good }),
        /"\.\.\/x\/SKILL\.md" has a "\.\." segment/,
      ],
      ['absolute', zip({ 'ok/SKILL.md': good, '/tmp/abs/SKILL.md': good }), /has an absolute path/],
      ['backslash', zip({ 'ok/SKILL.md': good, 'ok\\..\\..\\x': good }), /has a backslash/],
      ['symlink', zip({ 'ok/SKILL.md': good, 'ok/passwd': [link[0], link[1]] }), /is a link or special file/],
      ['oversize', zip({ 'ok/SKILL.md': good, ...manyFiles }), /inflates to more than 52428800 bytes/],
      [
        'ratio bomb',
        zip({ 'ok/SKILL.md': good, 'ok/zeros.bin': new Uint8Array(4 * 1024 * 1024) }),
        /zip bomb/,
      ],
      ['not a zip', text('hello, this is not a zip archive at all'), /not a zip archive/],
      ['no SKILL.md', zip({ 'ok/readme.txt': good }), /folder "ok\/" has no SKILL\.md/],
      ['stray file', zip({ 'ok/SKILL.md': good, 'loose.txt': good }), /outside a skill folder/],
      ['bad front matter', zip({ 'ok/SKILL.md': text('no front matter') }), /no valid YAML front matter/],
      [
        'file and folder',
        zip({ 'ok/SKILL.md': good, 'ok/a': good, 'ok/a/b': good }),
        /archive entry "ok\/a" is both a file and a folder/,
      ],
    ];
    for (const [label, archive, expected] of cases) {
      const response = await upload('/skills/upload', archive);
      assert.equal(response.statusCode, 400, `${label}: ${response.body}`);
      assert.match(response.json().error, expected, label);
    }
    assert.deepEqual(await globalEntries(), []);
    await assert.rejects(access(join(t.dir, 'data', 'x')));
    await assert.rejects(access('/tmp/abs'));
    assert.equal((await request('GET', '/skills')).json().total, 0);
  });

  it('refuses an upload that is not multipart (415) or lacks the file part (400)', async () => {
    const json = await request('POST', '/skills/upload', { file: 'x' });
    assert.equal(json.statusCode, 415);
    assert.match(json.json().error, /multipart\/form-data/);
    const body = multipart([{ name: 'scope', data: 'global' }]);
    const noFile = await t.app.inject({
      method: 'POST',
      url: '/api/v1/skills/upload',
      payload: body.payload,
      headers: body.headers,
    });
    assert.deepEqual(
      [noFile.statusCode, noFile.json()],
      [400, { error: 'multipart part "file" (the zip archive) is missing' }],
    );
    // The JSON parsers still work next to multipart, including an empty JSON body.
    const empty = await t.app.inject({
      method: 'DELETE',
      url: '/api/v1/skills/nothing',
      headers: { 'content-type': 'application/json' },
      payload: '',
    });
    assert.equal(empty.statusCode, 404);
  });

  it('copies a skill between scopes, with its files, renamed or not', async () => {
    await upload(
      '/agents/helper/skills/upload',
      zip({ 'tool/SKILL.md': text(skillFile('tool', 'A tool', 'Run it.')), 'tool/run.sh': text('echo hi') }),
    );
    const toGlobal = await request('POST', '/skills/copy', {
      name: 'tool',
      agentId: 'helper',
      targetScope: 'global',
      newName: 'shared-tool',
    });
    assert.equal(toGlobal.statusCode, 201, toGlobal.body);
    assert.deepEqual(toGlobal.json(), {
      name: 'shared-tool',
      description: 'A tool',
      content: 'Run it.',
      scope: 'global',
    });
    assert.equal(await readFile(join(t.services.skillsDir, 'shared-tool', 'run.sh'), 'utf8'), 'echo hi');
    assert.match(
      await readFile(join(t.services.skillsDir, 'shared-tool', 'SKILL.md'), 'utf8'),
      /name: shared-tool/,
    );

    const toOther = await request('POST', '/skills/copy', {
      name: 'shared-tool',
      scope: 'global',
      targetScope: 'local',
      targetAgentId: 'other',
    });
    assert.equal(toOther.statusCode, 201, toOther.body);
    assert.equal((await request('GET', '/agents/other/skills/shared-tool')).json().scope, 'local');

    const clash = await request('POST', '/skills/copy', { name: 'shared-tool', targetScope: 'global' });
    assert.deepEqual(
      [clash.statusCode, clash.json()],
      [409, { error: 'skill "shared-tool" already exists' }],
    );
    const missing = await request('POST', '/skills/copy', {
      name: 'nope',
      targetScope: 'global',
      newName: 'x',
    });
    assert.equal(missing.statusCode, 404);
    const noAgent = await request('POST', '/skills/copy', { name: 'shared-tool', targetScope: 'local' });
    assert.equal(noAgent.statusCode, 400);
    const badTarget = await request('POST', '/skills/copy', {
      name: 'shared-tool',
      targetScope: 'local',
      targetAgentId: 'ghost',
    });
    assert.equal(badTarget.statusCode, 404);
    await request('DELETE', '/skills/shared-tool');
    await request('DELETE', '/agents/other/skills/shared-tool');
    await request('DELETE', '/agents/helper/skills/tool');
  });
});
