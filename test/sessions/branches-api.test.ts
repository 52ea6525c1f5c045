// Edit and resend, regenerate and version switching over the API: each starts or shows a branch,
// the model is given the active branch only, nothing is deleted. Also export, pin and archive,
// title search and moving a conversation to another agent (members only to agents they are given).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { agentDefinition } from '../fakes/builders.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';

interface MessageView {
  id: number;
  role: string;
  content: string | null;
  parentId?: number;
  siblingIds?: number[];
}

describe('conversation branches, export, pins and moves', () => {
  let upstream: FakeUpstream;
  let t: TestApp;

  before(async () => {
    upstream = await startFakeUpstream();
    t = await createTestApp({ config: { models: upstream.modelsConfig() } });
    for (const id of ['plain', 'other']) {
      const created = await t.app.inject({
        method: 'POST',
        url: '/api/v1/agents',
        payload: agentDefinition(id, { tools: [] }),
      });
      assert.equal(created.statusCode, 201, created.body);
    }
  });
  after(async () => {
    await t.close();
    await upstream.close();
  });

  const chat = (sessionId: string, content: string, extra: Record<string, unknown> = {}, model = 'plain') =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/chat/completions',
      payload: { model, sessionId, messages: [{ role: 'user', content }], ...extra },
    });
  const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: Record<string, unknown>) =>
    t.app.inject({ method, url: `/api/v1${url}`, ...(payload ? { payload } : {}) });
  const messages = async (agentId: string, sessionId: string): Promise<MessageView[]> => {
    const answer = await call('GET', `/agents/${agentId}/sessions/${sessionId}/messages`);
    assert.equal(answer.statusCode, 200, answer.body);
    return answer.json().data;
  };
  /** The user and assistant texts the model was given in its last request. */
  const lastSent = () =>
    ((upstream.requests.at(-1)?.['messages'] ?? []) as Array<{ role: string; content: unknown }>)
      .filter((message) => message.role !== 'system')
      .map((message) => message.content);

  it('edit and resend starts a new branch; regenerate keeps every version; a switch shows another', async () => {
    upstream.script({ text: 'A1' }, { text: 'A2' });
    assert.equal((await chat('b1', 'Q1')).statusCode, 200);
    assert.equal((await chat('b1', 'Q2')).statusCode, 200);
    const linear = await messages('plain', 'b1');
    assert.deepEqual(
      linear.map((m) => m.content),
      ['Q1', 'A1', 'Q2', 'A2'],
    );
    const [q1, a1, q2, a2] = linear as [MessageView, MessageView, MessageView, MessageView];
    assert.equal(q2.parentId, a1.id);

    // Edit Q2: the new message follows Q2's parent.
    upstream.script({ text: 'A2 for the edit' });
    const edited = await chat('b1', 'Q2 edited', { parentMessageId: q2.parentId });
    assert.equal(edited.statusCode, 200, edited.body);
    assert.deepEqual(lastSent(), ['Q1', 'A1', 'Q2 edited'], 'the model sees the new branch only');
    const afterEdit = await messages('plain', 'b1');
    assert.deepEqual(
      afterEdit.map((m) => m.content),
      ['Q1', 'A1', 'Q2 edited', 'A2 for the edit'],
    );
    const editedId = afterEdit[2]?.id as number;
    assert.deepEqual(afterEdit[2]?.siblingIds, [q2.id, editedId]);
    assert.equal(afterEdit[0]?.siblingIds, undefined, 'a message with one version has no siblingIds');

    // Regenerate the edited message's answer twice: three versions under it.
    upstream.script({ text: 'A2 second version' }, { text: 'A2 third version' });
    const again = await chat('b1', 'ignored', { regenerate: editedId });
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.json().choices[0].message.content, 'A2 second version');
    assert.deepEqual(lastSent(), ['Q1', 'A1', 'Q2 edited'], 'the stored message is the input, once');
    const streamed = await chat('b1', 'ignored', { regenerate: editedId, stream: true });
    assert.equal(streamed.statusCode, 200);
    const streamedText = streamed.body
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)) as { choices: Array<{ delta: { content?: string } }> })
      .map((chunk) => chunk.choices[0]?.delta.content ?? '')
      .join('');
    assert.equal(streamedText, 'A2 third version');
    const versions = await messages('plain', 'b1');
    assert.deepEqual(
      versions.map((m) => m.content),
      ['Q1', 'A1', 'Q2 edited', 'A2 third version'],
    );
    assert.equal(versions[3]?.siblingIds?.length, 3);
    assert.equal(versions.filter((m) => m.role === 'user').length, 2, 'regenerate adds no user message');

    // Switch back to the second version of the answer, then to the first Q2.
    const second = versions[3]?.siblingIds?.[1] as number;
    const switched = await call('POST', '/agents/plain/sessions/b1/branch', { messageId: second });
    assert.equal(switched.statusCode, 200, switched.body);
    assert.deepEqual(switched.json(), { leafId: second });
    assert.equal((await messages('plain', 'b1'))[3]?.content, 'A2 second version');
    await call('POST', '/agents/plain/sessions/b1/branch', { messageId: q2.id });
    assert.deepEqual(
      (await messages('plain', 'b1')).map((m) => m.content),
      ['Q1', 'A1', 'Q2', 'A2'],
    );
    // The next message continues the branch shown.
    upstream.script({ text: 'A3' });
    await chat('b1', 'Q3');
    assert.deepEqual(lastSent(), ['Q1', 'A1', 'Q2', 'A2', 'Q3']);
    assert.deepEqual(
      (await messages('plain', 'b1')).map((m) => m.id),
      [q1.id, a1.id, q2.id, a2.id, ...(await messages('plain', 'b1')).slice(4).map((m) => m.id)],
    );
    // parentMessageId 0 starts over from nothing.
    upstream.script({ text: 'fresh answer' });
    await chat('b1', 'fresh start', { parentMessageId: 0 });
    assert.deepEqual(lastSent(), ['fresh start']);
    assert.deepEqual((await messages('plain', 'b1'))[0]?.siblingIds, [
      q1.id,
      (await messages('plain', 'b1'))[0]?.id,
    ]);
  });

  it('refuses a branch that does not fit the conversation, with a clear error', async () => {
    upstream.script({ text: 'R1' });
    await chat('b2', 'hello');
    const [question, reply] = await messages('plain', 'b2');
    const cases: Array<[Record<string, unknown>, number, RegExp, string?]> = [
      [{ regenerate: reply?.id }, 400, /not a user message/],
      [{ regenerate: 999_999 }, 404, /not in this conversation/],
      [{ parentMessageId: 999_999 }, 404, /not in this conversation/],
      [{ parentMessageId: 0, regenerate: question?.id }, 400, /not with regenerate/],
      [{ parentMessageId: -1 }, 400, /parentMessageId/],
    ];
    for (const [extra, status, error] of cases) {
      const answer = await chat('b2', 'x', extra);
      assert.equal(answer.statusCode, status, `${JSON.stringify(extra)}: ${answer.body}`);
      assert.match(answer.json().error, error);
    }
    const noSession = await t.app.inject({
      method: 'POST',
      url: '/api/v1/chat/completions',
      payload: { model: 'plain', regenerate: 1, messages: [{ role: 'user', content: 'x' }] },
    });
    assert.equal(noSession.statusCode, 400);
    assert.match(noSession.json().error, /needs sessionId/);
    const badSwitch = await call('POST', '/agents/plain/sessions/b2/branch', { messageId: 999_999 });
    assert.equal(badSwitch.statusCode, 404);
    const noBody = await call('POST', '/agents/plain/sessions/b2/branch', {});
    assert.equal(noBody.statusCode, 400);
    assert.match(noBody.json().error, /messageId/);
  });

  it('exports the active branch as Markdown and JSON attachments', async () => {
    upstream.script({ text: 'The **answer**' });
    await chat('b3', 'Export me');
    await call('PATCH', '/agents/plain/sessions/b3', { title: '导出 Test' });
    const md = await call('GET', '/agents/plain/sessions/b3/export?format=md');
    assert.equal(md.statusCode, 200, md.body);
    assert.match(String(md.headers['content-type']), /^text\/markdown/);
    const disposition = String(md.headers['content-disposition']);
    assert.match(
      disposition,
      /^attachment; filename="__-Test\.md"; filename\*=UTF-8''%E5%AF%BC%E5%87%BA-Test\.md$/,
    );
    assert.match(md.body, /^# 导出 Test\n/);
    assert.match(md.body, /## User\n\nExport me\n\n## Assistant\n\nThe \*\*answer\*\*\n/);
    const json = await call('GET', '/agents/plain/sessions/b3/export?format=json');
    assert.equal(json.statusCode, 200);
    assert.match(String(json.headers['content-type']), /^application\/json/);
    const body = json.json();
    assert.equal(body.session.title, '导出 Test');
    assert.deepEqual(
      body.messages.map((m: MessageView) => m.content),
      ['Export me', 'The **answer**'],
    );
    const bad = await call('GET', '/agents/plain/sessions/b3/export?format=pdf');
    assert.equal(bad.statusCode, 400);
    assert.match(bad.json().error, /format/);
    assert.equal((await call('GET', '/agents/plain/sessions/nope/export')).statusCode, 404);
  });

  it('pins and archives; the list puts pins first and leaves archived ones out unless asked', async () => {
    upstream.script({ text: 'x' }, { text: 'y' }, { text: 'z' });
    for (const id of ['p1', 'p2', 'p3']) await chat(id, `hello ${id}`, {}, 'other');
    const order = async (query = '') =>
      (await call('GET', `/agents/other/sessions${query}`))
        .json()
        .data.map((s: { sessionId: string }) => s.sessionId);
    assert.deepEqual(await order(), ['p3', 'p2', 'p1']);
    const pinned = await call('PATCH', '/agents/other/sessions/p1', { pinned: true });
    assert.equal(pinned.statusCode, 200, pinned.body);
    assert.equal(pinned.json().pinned, true);
    assert.deepEqual(await order(), ['p1', 'p3', 'p2']);
    await call('PATCH', '/agents/other/sessions/p3', { archived: true });
    assert.deepEqual(await order(), ['p1', 'p2']);
    assert.deepEqual(await order('?archived=true'), ['p3']);
    assert.deepEqual(await order('?archived=all'), ['p1', 'p3', 'p2']);
    const empty = await call('PATCH', '/agents/other/sessions/p1', {});
    assert.equal(empty.statusCode, 400);
    assert.match(empty.json().error, /at least one/);
    const wrong = await call('GET', '/agents/other/sessions?archived=maybe');
    assert.equal(wrong.statusCode, 400);
  });

  it('search finds conversations by title and by message, scoped as the list', async () => {
    upstream.script({ text: 'the zebra budget is fine' });
    await chat('s-title', 'tell me about zebras');
    await call('PATCH', '/agents/plain/sessions/s-title', { title: 'Zebra planning 计划' });
    const found = await call('GET', `/agents/plain/sessions/search?q=${encodeURIComponent('计划')}`);
    assert.equal(found.statusCode, 200, found.body);
    assert.deepEqual(
      found.json().sessions.map((s: { sessionId: string }) => s.sessionId),
      ['s-title'],
    );
    const byMessage = (await call('GET', '/agents/plain/sessions/search?q=zebra')).json();
    assert.ok(byMessage.results.some((hit: { sessionId: string }) => hit.sessionId === 's-title'));
  });

  it('moves a conversation to another agent, which answers its next turn with the whole history', async () => {
    upstream.script({ text: 'from plain' });
    await chat('mv', 'start with plain');
    const moved = await call('PATCH', '/agents/plain/sessions/mv', { agentId: 'other' });
    assert.equal(moved.statusCode, 200, moved.body);
    assert.equal(moved.json().key, 'agent:other:channel:api:scope:per_peer:mv');
    assert.equal(moved.json().agentId, 'other');
    assert.equal((await call('GET', '/agents/plain/sessions/mv')).statusCode, 404);
    upstream.script({ text: 'from other' });
    await chat('mv', 'continue with other', {}, 'other');
    assert.deepEqual(lastSent(), ['start with plain', 'from plain', 'continue with other']);
    const unknown = await call('PATCH', '/agents/other/sessions/mv', { agentId: 'ghost' });
    assert.equal(unknown.statusCode, 404);
    // Another conversation of the same id on the target: 409, nothing moves.
    upstream.script({ text: 'a' }, { text: 'b' });
    await chat('dup', 'one', {}, 'plain');
    await chat('dup', 'two', {}, 'other');
    const taken = await call('PATCH', '/agents/plain/sessions/dup', { agentId: 'other' });
    assert.equal(taken.statusCode, 409);
    assert.equal((await call('GET', '/agents/plain/sessions/dup')).statusCode, 200);
  });

  it('are in the OpenAPI document', async () => {
    const paths = (await call('GET', '/openapi.json')).json().paths;
    assert.ok(paths['/api/v1/agents/{agentId}/sessions/{sessionKey}/export'].get);
    assert.ok(paths['/api/v1/agents/{agentId}/sessions/{sessionKey}/branch'].post);
    const patch = paths['/api/v1/agents/{agentId}/sessions/{sessionKey}'].patch;
    const schema = JSON.stringify(patch.requestBody);
    for (const field of ['pinned', 'archived', 'agentId', 'title']) assert.match(schema, new RegExp(field));
  });
});

describe('a member and conversation moves, search and branches', () => {
  const ADMIN_KEY = 'sk-admin-key-0123456789';
  let t: TestApp;
  after(() => t?.close());

  it('moves only to agents the member is given; search and export see only its own conversations', async () => {
    t = await createTestApp({
      listen: true,
      config: { security: { requireAuth: true, users: { admin: `admin-pass-1:${ADMIN_KEY}` } } },
    });
    const send = async (method: string, path: string, token: string, body?: unknown) => {
      const response = await fetch(`${t.url}/api/v1${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, body: text.startsWith('{') ? JSON.parse(text) : text };
    };
    for (const id of ['alpha', 'beta', 'gamma'])
      assert.equal((await send('POST', '/agents', ADMIN_KEY, agentDefinition(id))).status, 201);
    const created = await send('POST', '/users', ADMIN_KEY, {
      name: 'ann',
      password: 'ann-password-1',
      role: 'member',
      agents: ['alpha', 'beta'],
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const token = (await send('POST', '/auth/login', '', { username: 'ann', password: 'ann-password-1' }))
      .body.token as string;
    const chat = (agent: string, sessionId: string, content: string, token_: string) =>
      send('POST', '/chat/completions', token_, {
        model: agent,
        sessionId,
        messages: [{ role: 'user', content }],
      });
    assert.equal((await chat('alpha', 'm1', 'hello walrus', token)).status, 200);
    assert.equal((await chat('alpha', 'a1', 'admin walrus', ADMIN_KEY)).status, 200);
    const search = await send('GET', '/agents/alpha/sessions/search?q=walrus', token);
    assert.equal(search.status, 200, JSON.stringify(search.body));
    assert.deepEqual(
      [...new Set(search.body.results.map((hit: { sessionId: string }) => hit.sessionId))],
      ['@ann:m1'],
    );
    assert.equal((await send('GET', '/agents/alpha/sessions/a1/export', token)).status, 404);
    assert.equal((await send('GET', '/agents/alpha/sessions/m1/export', token)).status, 200);
    const refused = await send('PATCH', '/agents/alpha/sessions/m1', token, { agentId: 'gamma' });
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    const moved = await send('PATCH', '/agents/alpha/sessions/m1', token, { agentId: 'beta' });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    assert.equal(moved.body.sessionId, '@ann:m1', "the conversation stays the member's own");
    const listed = await send('GET', '/agents/beta/sessions', token);
    assert.deepEqual(
      listed.body.data.map((session: { sessionId: string }) => session.sessionId),
      ['@ann:m1'],
    );
    // The member continues it with beta, and can switch versions of its own messages.
    assert.equal((await chat('beta', 'm1', 'more', token)).status, 200);
    const messages = (await send('GET', '/agents/beta/sessions/m1/messages', token)).body.data;
    const switched = await send('POST', '/agents/beta/sessions/m1/branch', token, {
      messageId: messages[0].id,
    });
    assert.equal(switched.status, 200, JSON.stringify(switched.body));
  });
});
