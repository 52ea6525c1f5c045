import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { lstat, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { resolveOutboundFile } from '../../src/channels/files.ts';
import { AppError } from '../../src/core/errors.ts';
import { FolderListing, renderSystemPrompt } from '../../src/engine/ai/system-prompt.ts';
import { Template } from '../../src/engine/template.ts';
import { createEditTool } from '../../src/tools/edit.ts';
import { createGrepTool } from '../../src/tools/grep.ts';
import { searchFiles } from '../../src/tools/grep-worker.ts';
import { createReadTool } from '../../src/tools/read.ts';
import { createWriteTool } from '../../src/tools/write.ts';
import { resolveInWorkspace } from '../../src/tools/workspace-path.ts';
import { createWorkspaceFixture } from './workspace-fixture.ts';
import type { WorkspaceFixture } from './workspace-fixture.ts';

// Four opens of a FIFO waiting for a writer take every libuv thread; eight make sure of it.
const ATTEMPTS = 8;
const DEADLINE_MS = 2000;

const notRegular = (name: string) => (error: unknown) =>
  error instanceof AppError && error.kind === 'invalid' && error.message === `${name} is not a regular file`;

/** Rejects once the deadline passes, so an open that hangs fails the test instead of stalling it. */
async function withDeadline<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} still pending after ${DEADLINE_MS} ms`)), DEADLINE_MS);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

describe('FIFOs in a workspace', () => {
  let fixture: WorkspaceFixture;
  let fifos: string[];
  let pending: Array<Promise<unknown>>;

  /** Makes a FIFO in the workspace; its path. */
  function makeFifo(name: string): string {
    const path = join(fixture.workspace, name);
    execFileSync('mkfifo', [path]);
    fifos.push(path);
    return path;
  }

  /** Remembers an operation on a FIFO, so cleanup can wait for it. */
  function track<T>(promise: Promise<T>): Promise<T> {
    pending.push(promise.catch(() => undefined));
    return promise;
  }

  // Should a regression leave opens waiting on a FIFO, a writer coming and going lets them finish,
  // so the test fails instead of hanging the run.
  function releaseWaitingReaders(): void {
    for (const fifo of fifos) {
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // ENXIO: nobody is waiting.
      }
    }
  }

  beforeEach(async () => {
    fixture = await createWorkspaceFixture();
    fifos = [];
    pending = [];
  });

  afterEach(async () => {
    const releasing = setInterval(releaseWaitingReaders, 20);
    await Promise.all(pending);
    await delay(60);
    clearInterval(releasing);
    await fixture.cleanup();
  });

  it('read refuses a FIFO at once', async () => {
    makeFifo('pipe');
    await assert.rejects(
      withDeadline(track(createReadTool().execute({ path: 'pipe' }, fixture.context())), 'read'),
      notRegular('pipe'),
    );
  });

  it('reads of a FIFO do not stall the file I/O of the process', async () => {
    makeFifo('pipe');
    const read = createReadTool();
    const attempts = Array.from({ length: ATTEMPTS }, () =>
      track(read.execute({ path: 'pipe' }, fixture.context())),
    );
    const text = await withDeadline(readFile(join(fixture.workspace, 'README.md'), 'utf8'), 'readFile');
    assert.equal(text, '# Demo\n\nHello world.\n');
    const outcomes = await withDeadline(Promise.allSettled(attempts), 'reads of the FIFO');
    assert.ok(
      outcomes.every((outcome) => outcome.status === 'rejected' && notRegular('pipe')(outcome.reason)),
    );
  });

  it('edit refuses a FIFO at once', async () => {
    makeFifo('pipe');
    const edit = createEditTool().execute({ path: 'pipe', oldText: 'a', newText: 'b' }, fixture.context());
    await assert.rejects(withDeadline(track(edit), 'edit'), notRegular('pipe'));
  });

  it('write refuses to replace a FIFO', async () => {
    const fifo = makeFifo('pipe');
    const write = createWriteTool().execute({ path: 'pipe', content: 'text' }, fixture.context());
    await assert.rejects(withDeadline(track(write), 'write'), notRegular('pipe'));
    assert.equal((await lstat(fifo)).isFIFO(), true);
  });

  it('grep refuses a FIFO named as its path', async () => {
    makeFifo('pipe');
    const grep = createGrepTool().execute({ pattern: 'x', path: 'pipe' }, fixture.context());
    await assert.rejects(withDeadline(track(grep), 'grep'), notRegular('pipe'));
  });

  it("grep's worker skips a listed file that has become a FIFO, without waiting on it", async () => {
    const fifo = makeFifo('pipe');
    const search = searchFiles({
      files: [
        { path: fifo, name: 'pipe' },
        { path: join(fixture.workspace, 'README.md'), name: 'README.md' },
      ],
      source: 'Hello',
      flags: '',
      maxMatches: 10,
      maxFileBytes: 1024,
      timeoutMs: 1500,
      signal: new AbortController().signal,
    });
    const result = await withDeadline(track(search), 'search');
    assert.deepEqual(result, {
      matches: [{ name: 'README.md', line: 3, text: 'Hello world.' }],
      capped: false,
      timedOut: false,
    });
  });

  it('the system prompt skips prompt files that are FIFOs, and file I/O goes on', async () => {
    makeFifo('AGENTS.md');
    makeFifo('notes.md');
    await writeFile(join(fixture.workspace, 'SOUL.md'), 'You love tea.');
    const template = Template.compile('You help.${include(notes.md)}');
    const build = () =>
      renderSystemPrompt(template, {
        chainId: 'chain',
        workspaceDir: fixture.workspace,
        vars: {},
        globals: () => ({}),
        listing: new FolderListing(),
        resolvePath: (path) => resolveInWorkspace(fixture.workspace, path, { mustExist: true }),
      });
    const builds = Array.from({ length: ATTEMPTS }, () => track(build()));
    await withDeadline(readFile(join(fixture.workspace, 'README.md')), 'readFile');
    for (const prompt of await withDeadline(Promise.all(builds), 'system prompts')) {
      assert.equal(prompt, 'You help.\n\n## SOUL.md\n\nYou love tea.');
    }
  });

  it('channel send-file refuses a FIFO, and file I/O goes on', async () => {
    makeFifo('pipe');
    const access = { requireAgent: () => undefined, workspace: () => Promise.resolve(fixture.workspace) };
    const sends = Array.from({ length: ATTEMPTS }, () =>
      track(resolveOutboundFile(access, 'filePath', 'main:pipe', 1024)),
    );
    await withDeadline(readFile(join(fixture.workspace, 'README.md')), 'readFile');
    const outcomes = await withDeadline(Promise.allSettled(sends), 'sends');
    assert.ok(
      outcomes.every((outcome) => outcome.status === 'rejected' && notRegular('filePath')(outcome.reason)),
    );
  });
});
