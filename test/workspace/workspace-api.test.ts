import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readFile, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';

const base = '/api/v1/agents/main/workspace';
const q = (path: string) => `?path=${encodeURIComponent(path)}`;

describe('agent workspace API', () => {
  let t: TestApp;
  let ws: string;
  beforeEach(async () => {
    t = await createTestApp();
    ws = await t.services.workspace('main');
  });
  afterEach(() => t.close());

  const call = (method: 'GET' | 'PUT' | 'POST' | 'DELETE' | 'PATCH', url: string, payload?: object) =>
    t.app.inject({ method, url, ...(payload ? { payload } : {}) });

  describe('entries', () => {
    it('lists the root by default: folders first, then by name; size and modTime for files only', async () => {
      await mkdir(join(ws, 'zeta'));
      await mkdir(join(ws, 'alpha'));
      await writeFile(join(ws, 'b.md'), 'hello');
      await writeFile(join(ws, 'A.md'), '');
      const response = await call('GET', `${base}/entries`);
      assert.equal(response.statusCode, 200, response.body);
      const info = await stat(join(ws, 'b.md'));
      assert.deepEqual(response.json(), [
        { name: 'alpha', isDir: true },
        { name: 'zeta', isDir: true },
        { name: 'A.md', isDir: false, size: 0, modTime: (await stat(join(ws, 'A.md'))).mtime.toISOString() },
        { name: 'b.md', isDir: false, size: 5, modTime: info.mtime.toISOString() },
      ]);
      assert.match(response.json()[3].modTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    });

    it('lists a sub-folder; a file is 400, a missing folder 404', async () => {
      await mkdir(join(ws, 'docs/deep'), { recursive: true });
      await writeFile(join(ws, 'docs/x.txt'), 'x');
      const listed = await call('GET', `${base}/entries${q('docs')}`);
      assert.deepEqual(
        listed.json().map((entry: { name: string }) => entry.name),
        ['deep', 'x.txt'],
      );
      const file = await call('GET', `${base}/entries${q('docs/x.txt')}`);
      assert.equal(file.statusCode, 400);
      assert.deepEqual(file.json(), { error: 'docs/x.txt is not a directory' });
      const missing = await call('GET', `${base}/entries${q('nope')}`);
      assert.equal(missing.statusCode, 404);
      assert.deepEqual(missing.json(), { error: 'no such file or directory: nope' });
    });
  });

  describe('file', () => {
    it('GET returns the text content, byte order mark included', async () => {
      await mkdir(join(ws, 'notes'));
      await writeFile(join(ws, 'notes/a.md'), '\uFEFF# Hi 你好\n');
      const response = await call('GET', `${base}/file${q('notes/a.md')}`);
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), { content: '\uFEFF# Hi 你好\n' });
    });

    it('GET: missing 404, folder 400, no path 400 naming the field', async () => {
      await mkdir(join(ws, 'docs'));
      const missing = await call('GET', `${base}/file${q('gone.md')}`);
      assert.equal(missing.statusCode, 404);
      assert.deepEqual(missing.json(), { error: 'no such file or directory: gone.md' });
      const folder = await call('GET', `${base}/file${q('docs')}`);
      assert.equal(folder.statusCode, 400);
      assert.deepEqual(folder.json(), { error: 'docs is a directory' });
      const noPath = await call('GET', `${base}/file`);
      assert.equal(noPath.statusCode, 400);
      assert.match(noPath.json().error, /^query\.path: /);
    });

    it('GET refuses binary (415), non-UTF-8 (415) and over 5 MiB (413) files', async () => {
      await writeFile(join(ws, 'image.png'), Buffer.from([0x89, 0x50, 0x00, 0x47]));
      await writeFile(join(ws, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
      await writeFile(join(ws, 'big.log'), Buffer.alloc(5 * 1024 * 1024 + 1, 'a'));
      await writeFile(join(ws, 'limit.log'), Buffer.alloc(5 * 1024 * 1024, 'a'));
      const binary = await call('GET', `${base}/file${q('image.png')}`);
      assert.equal(binary.statusCode, 415);
      assert.deepEqual(binary.json(), { error: 'image.png is a binary file' });
      const latin1 = await call('GET', `${base}/file${q('latin1.txt')}`);
      assert.equal(latin1.statusCode, 415);
      assert.deepEqual(latin1.json(), { error: 'latin1.txt is not UTF-8 text' });
      const big = await call('GET', `${base}/file${q('big.log')}`);
      assert.equal(big.statusCode, 413);
      assert.deepEqual(big.json(), {
        error: 'big.log is 5242881 bytes; files over 5242880 bytes can only be downloaded',
      });
      const limit = await call('GET', `${base}/file${q('limit.log')}`);
      assert.equal(limit.statusCode, 200);
      assert.equal(limit.json().content.length, 5 * 1024 * 1024);
    });

    it('a FIFO is refused (400) for reading and download instead of hanging the request', async () => {
      execFileSync('mkfifo', [join(ws, 'pipe')]);
      for (const route of ['file', 'download']) {
        const response = await call('GET', `${base}/${route}${q('pipe')}`);
        assert.equal(response.statusCode, 400, route);
        assert.deepEqual(response.json(), { error: 'pipe is not a regular file' }, route);
      }
    });

    it('PUT overwrites an existing file and keeps its mode; a missing file is 404 and not created', async () => {
      await writeFile(join(ws, 'run.sh'), 'echo old', { mode: 0o755 });
      const saved = await call('PUT', `${base}/file${q('run.sh')}`, { content: 'echo new' });
      assert.equal(saved.statusCode, 200, saved.body);
      assert.deepEqual(saved.json(), { success: true, message: 'file "run.sh" saved' });
      assert.equal(await readFile(join(ws, 'run.sh'), 'utf8'), 'echo new');
      assert.equal((await stat(join(ws, 'run.sh'))).mode & 0o777, 0o755);
      const missing = await call('PUT', `${base}/file${q('new.md')}`, { content: 'x' });
      assert.equal(missing.statusCode, 404);
      assert.deepEqual(missing.json(), { error: 'no such file or directory: new.md' });
      await assert.rejects(stat(join(ws, 'new.md')), { code: 'ENOENT' });
      assert.deepEqual(await readdir(ws), ['run.sh'], 'no temp file left behind');
    });

    it('PUT: a folder is 400; a missing content field is 400 naming it', async () => {
      await mkdir(join(ws, 'docs'));
      const folder = await call('PUT', `${base}/file${q('docs')}`, { content: 'x' });
      assert.equal(folder.statusCode, 400);
      assert.deepEqual(folder.json(), { error: 'docs is a directory' });
      await writeFile(join(ws, 'a.md'), 'a');
      const noContent = await call('PUT', `${base}/file${q('a.md')}`, {});
      assert.equal(noContent.statusCode, 400);
      assert.match(noContent.json().error, /^body\.content: /);
      assert.equal(await readFile(join(ws, 'a.md'), 'utf8'), 'a');
    });

    it('PUT through a link inside the workspace writes the target and keeps the link', async () => {
      await writeFile(join(ws, 'real.md'), 'old');
      await symlink('real.md', join(ws, 'alias.md'));
      const saved = await call('PUT', `${base}/file${q('alias.md')}`, { content: 'new' });
      assert.equal(saved.statusCode, 200, saved.body);
      assert.equal(await readFile(join(ws, 'real.md'), 'utf8'), 'new');
      assert.ok((await lstat(join(ws, 'alias.md'))).isSymbolicLink());
    });
  });

  describe('create', () => {
    it('POST /files creates a file and its parent folders (201)', async () => {
      const created = await call('POST', `${base}/files`, { path: 'a/b/c.md', content: '# C' });
      assert.equal(created.statusCode, 201, created.body);
      assert.deepEqual(created.json(), { success: true, message: 'file "a/b/c.md" created' });
      assert.equal(await readFile(join(ws, 'a/b/c.md'), 'utf8'), '# C');
      const empty = await call('POST', `${base}/files`, { path: 'empty.txt' });
      assert.equal(empty.statusCode, 201);
      assert.equal(await readFile(join(ws, 'empty.txt'), 'utf8'), '');
    });

    it('POST /files: an existing file or folder is 409 and left alone; a file as parent is 400', async () => {
      await writeFile(join(ws, 'keep.md'), 'original');
      await mkdir(join(ws, 'docs'));
      const file = await call('POST', `${base}/files`, { path: 'keep.md', content: 'overwritten?' });
      assert.equal(file.statusCode, 409);
      assert.deepEqual(file.json(), { error: 'keep.md already exists' });
      assert.equal(await readFile(join(ws, 'keep.md'), 'utf8'), 'original');
      const folder = await call('POST', `${base}/files`, { path: 'docs', content: '' });
      assert.equal(folder.statusCode, 409);
      const underFile = await call('POST', `${base}/files`, { path: 'keep.md/x.md', content: '' });
      assert.equal(underFile.statusCode, 400);
      assert.deepEqual(underFile.json(), { error: 'a parent of keep.md/x.md is not a directory' });
      const noPath = await call('POST', `${base}/files`, { content: 'x' });
      assert.equal(noPath.statusCode, 400);
      assert.match(noPath.json().error, /^body\.path: /);
    });

    it('POST /dirs creates nested folders (201); an existing entry is 409', async () => {
      const created = await call('POST', `${base}/dirs`, { path: 'x/y/z' });
      assert.equal(created.statusCode, 201, created.body);
      assert.deepEqual(created.json(), { success: true, message: 'folder "x/y/z" created' });
      assert.ok((await stat(join(ws, 'x/y/z'))).isDirectory());
      const again = await call('POST', `${base}/dirs`, { path: 'x/y' });
      assert.equal(again.statusCode, 409);
      assert.deepEqual(again.json(), { error: 'x/y already exists' });
      const noPath = await call('POST', `${base}/dirs`, {});
      assert.equal(noPath.statusCode, 400);
      assert.match(noPath.json().error, /^body\.path: /);
    });
  });

  describe('delete', () => {
    it('deletes a file, and a folder with everything in it', async () => {
      await mkdir(join(ws, 'docs/deep'), { recursive: true });
      await writeFile(join(ws, 'docs/deep/a.md'), 'a');
      await writeFile(join(ws, 'b.md'), 'b');
      const file = await call('DELETE', `${base}/entry${q('b.md')}`);
      assert.equal(file.statusCode, 200, file.body);
      assert.deepEqual(file.json(), { success: true, message: '"b.md" deleted' });
      const folder = await call('DELETE', `${base}/entry${q('docs')}`);
      assert.equal(folder.statusCode, 200, folder.body);
      assert.deepEqual(await readdir(ws), []);
    });

    it('refuses the workspace root (400) however it is spelled; a missing entry is 404', async () => {
      await writeFile(join(ws, 'keep.md'), 'k');
      for (const path of ['.', './', 'sub/..', ws]) {
        const response = await call('DELETE', `${base}/entry${q(path)}`);
        assert.equal(response.statusCode, 400, path);
        assert.deepEqual(response.json(), { error: 'the workspace root cannot be deleted' }, path);
      }
      const empty = await call('DELETE', `${base}/entry${q('')}`);
      assert.equal(empty.statusCode, 400);
      assert.match(empty.json().error, /^query\.path: /);
      const missing = await call('DELETE', `${base}/entry${q('gone.md')}`);
      assert.equal(missing.statusCode, 404);
      assert.deepEqual(missing.json(), { error: 'no such file or directory: gone.md' });
      assert.deepEqual(await readdir(ws), ['keep.md']);
    });
  });

  describe('rename', () => {
    it('renames a file within its folder', async () => {
      await mkdir(join(ws, 'docs'));
      await writeFile(join(ws, 'docs/old.md'), 'content');
      const response = await call('PATCH', `${base}/rename${q('docs/old.md')}`, { newName: 'new.md' });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), { success: true, message: '"docs/old.md" renamed to "new.md"' });
      assert.deepEqual(await readdir(join(ws, 'docs')), ['new.md']);
      assert.equal(await readFile(join(ws, 'docs/new.md'), 'utf8'), 'content');
    });

    it('an existing target is 409; a missing source 404; the root 400', async () => {
      await writeFile(join(ws, 'a.md'), 'a');
      await writeFile(join(ws, 'b.md'), 'b');
      const taken = await call('PATCH', `${base}/rename${q('a.md')}`, { newName: 'b.md' });
      assert.equal(taken.statusCode, 409);
      assert.deepEqual(taken.json(), { error: 'b.md already exists' });
      assert.equal(await readFile(join(ws, 'b.md'), 'utf8'), 'b');
      const missing = await call('PATCH', `${base}/rename${q('c.md')}`, { newName: 'd.md' });
      assert.equal(missing.statusCode, 404);
      assert.deepEqual(missing.json(), { error: 'no such file or directory: c.md' });
      const root = await call('PATCH', `${base}/rename${q('.')}`, { newName: 'd' });
      assert.equal(root.statusCode, 400);
      assert.deepEqual(root.json(), { error: 'the workspace root cannot be renamed' });
    });

    it('a newName that is not a single name is 400 and nothing moves', async () => {
      await writeFile(join(ws, 'a.md'), 'a');
      for (const newName of ['../escaped.md', 'sub/b.md', 'sub\\b.md', '..', '.', '', 'a\0b']) {
        const response = await call('PATCH', `${base}/rename${q('a.md')}`, { newName });
        assert.equal(response.statusCode, 400, JSON.stringify(newName));
        assert.match(response.json().error, /^body\.newName: /, JSON.stringify(newName));
      }
      assert.deepEqual(await readdir(ws), ['a.md']);
      const missing = await call('PATCH', `${base}/rename${q('a.md')}`, {});
      assert.equal(missing.statusCode, 400);
      assert.match(missing.json().error, /^body\.newName: /);
    });
  });

  describe('download', () => {
    it('streams the file as an attachment with a safe file name', async () => {
      const bytes = Buffer.from([0, 1, 2, 255, 10, 13]);
      await writeFile(join(ws, 'data.bin'), bytes);
      const response = await call('GET', `${base}/download${q('data.bin')}`);
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-type'], 'application/octet-stream');
      assert.equal(
        response.headers['content-disposition'],
        `attachment; filename="data.bin"; filename*=UTF-8''data.bin`,
      );
      assert.equal(response.headers['content-length'], '6');
      assert.deepEqual(response.rawPayload, bytes);
    });

    it('a name with quotes and non-ASCII letters gets an ASCII fallback and an exact UTF-8 name', async () => {
      const name = 'rapport "final" é.txt';
      await writeFile(join(ws, name), 'ok');
      const response = await call('GET', `${base}/download${q(name)}`);
      assert.equal(response.statusCode, 200);
      assert.equal(
        response.headers['content-disposition'],
        `attachment; filename="rapport _final_ _.txt"; filename*=UTF-8''rapport%20%22final%22%20%C3%A9.txt`,
      );
      assert.equal(response.body, 'ok');
    });

    it('an empty file downloads as zero bytes; a folder is 400; a missing file 404', async () => {
      await writeFile(join(ws, 'empty'), '');
      await mkdir(join(ws, 'docs'));
      const empty = await call('GET', `${base}/download${q('empty')}`);
      assert.equal(empty.statusCode, 200);
      assert.equal(empty.rawPayload.length, 0);
      const folder = await call('GET', `${base}/download${q('docs')}`);
      assert.equal(folder.statusCode, 400);
      assert.deepEqual(folder.json(), { error: 'docs is a directory' });
      const missing = await call('GET', `${base}/download${q('nope')}`);
      assert.equal(missing.statusCode, 404);
    });
  });

  // Every route, with a valid body, against the path given.
  const everyRoute = (path: string) =>
    [
      ['GET', `entries${q(path)}`],
      ['GET', `file${q(path)}`],
      ['PUT', `file${q(path)}`, { content: 'x' }],
      ['POST', 'files', { path, content: 'x' }],
      ['POST', 'dirs', { path }],
      ['DELETE', `entry${q(path)}`],
      ['PATCH', `rename${q(path)}`, { newName: 'renamed' }],
      ['GET', `download${q(path)}`],
    ] as const;

  it('an unknown agent is 404 on every route, and no workspace is created for it', async () => {
    for (const [method, tail, payload] of everyRoute('a.md')) {
      const response = await call(method, `/api/v1/agents/ghost/workspace/${tail}`, payload);
      assert.equal(response.statusCode, 404, `${method} ${tail}`);
      assert.deepEqual(response.json(), { error: 'agent "ghost" not found' }, `${method} ${tail}`);
    }
    const agents = await readdir(join(t.store.current.data.root_dir, 'agents'));
    assert.ok(!agents.includes('ghost'), agents.join(','));
  });

  it('".." and absolute paths leading out of the workspace are 400 on every route', async () => {
    for (const path of ['../config.yaml', '/etc/passwd', 'sub/../../x', '../../../../../../etc/hosts']) {
      for (const [method, tail, payload] of everyRoute(path)) {
        const response = await call(method, `${base}/${tail}`, payload);
        assert.equal(response.statusCode, 400, `${method} ${tail}`);
        assert.deepEqual(response.json(), { error: 'path outside workspace' }, `${method} ${tail}`);
      }
    }
  });

  describe('links leading out of the workspace', () => {
    let outside: string;
    beforeEach(async () => {
      outside = await mkdtemp(join(tmpdir(), 'workspace-outside-'));
      await writeFile(join(outside, 'secret.txt'), 'top secret');
      await symlink(outside, join(ws, 'out'));
      await symlink(join(outside, 'secret.txt'), join(ws, 'secret-link'));
    });
    afterEach(() => rm(outside, { recursive: true, force: true }));

    it('reading, writing, creating, listing, renaming and downloading through them is 400', async () => {
      for (const path of ['out/secret.txt', 'secret-link', 'out', 'out/new.txt', 'out/sub/new.txt']) {
        for (const [method, tail, payload] of everyRoute(path)) {
          // Deleting or renaming `out` or `secret-link` acts on the link itself; see the next test.
          if ((method === 'DELETE' || method === 'PATCH') && !path.includes('/')) continue;
          const response = await call(method, `${base}/${tail}`, payload);
          assert.equal(response.statusCode, 400, `${method} ${tail}`);
          assert.deepEqual(response.json(), { error: 'path outside workspace' }, `${method} ${tail}`);
        }
      }
      assert.deepEqual(await readdir(outside), ['secret.txt']);
      assert.equal(await readFile(join(outside, 'secret.txt'), 'utf8'), 'top secret');
    });

    it('the listing shows them as plain entries, revealing nothing about their targets', async () => {
      const response = await call('GET', `${base}/entries`);
      assert.equal(response.statusCode, 200);
      const entries = response.json() as Array<{ name: string; isDir: boolean; size: number }>;
      const out = entries.find((entry) => entry.name === 'out');
      const secret = entries.find((entry) => entry.name === 'secret-link');
      assert.equal(out?.isDir, false, 'a link to an outside folder is not shown as a folder');
      assert.equal(out?.size, (await lstat(join(ws, 'out'))).size);
      assert.equal(secret?.size, (await lstat(join(ws, 'secret-link'))).size);
      assert.notEqual(secret?.size, 'top secret'.length);
    });

    it('deleting or renaming one acts on the link itself; the outside files are untouched', async () => {
      const renamed = await call('PATCH', `${base}/rename${q('secret-link')}`, { newName: 'moved-link' });
      assert.equal(renamed.statusCode, 200, renamed.body);
      assert.ok((await lstat(join(ws, 'moved-link'))).isSymbolicLink());
      const deletedFolderLink = await call('DELETE', `${base}/entry${q('out')}`);
      assert.equal(deletedFolderLink.statusCode, 200, deletedFolderLink.body);
      const deletedFileLink = await call('DELETE', `${base}/entry${q('moved-link')}`);
      assert.equal(deletedFileLink.statusCode, 200, deletedFileLink.body);
      assert.deepEqual(await readdir(ws), []);
      assert.deepEqual(await readdir(outside), ['secret.txt']);
      assert.equal(await readFile(join(outside, 'secret.txt'), 'utf8'), 'top secret');
    });

    it('deleting a folder that holds such a link removes the link, not what it points to', async () => {
      await mkdir(join(ws, 'docs'));
      await symlink(outside, join(ws, 'docs/out'));
      const response = await call('DELETE', `${base}/entry${q('docs')}`);
      assert.equal(response.statusCode, 200, response.body);
      await assert.rejects(lstat(join(ws, 'docs')), { code: 'ENOENT' });
      assert.equal(await readFile(join(outside, 'secret.txt'), 'utf8'), 'top secret');
    });
  });

  it('links that stay inside the workspace are followed for reading and listing, not for delete', async () => {
    await mkdir(join(ws, 'real'));
    await writeFile(join(ws, 'real/a.md'), 'inside');
    await symlink('real', join(ws, 'alias'));
    const read = await call('GET', `${base}/file${q('alias/a.md')}`);
    assert.deepEqual(read.json(), { content: 'inside' });
    const listed = await call('GET', `${base}/entries`);
    assert.deepEqual(listed.json(), [
      { name: 'alias', isDir: true },
      { name: 'real', isDir: true },
    ]);
    const inner = await call('GET', `${base}/entries${q('alias')}`);
    assert.deepEqual(
      inner.json().map((entry: { name: string }) => entry.name),
      ['a.md'],
    );
    const deleted = await call('DELETE', `${base}/entry${q('alias')}`);
    assert.equal(deleted.statusCode, 200, deleted.body);
    assert.deepEqual(await readdir(ws), ['real'], 'the link is gone');
    assert.equal(await readFile(join(ws, 'real/a.md'), 'utf8'), 'inside', 'its target is not');
  });
});
