/* global document, window, fetch, sessionStorage, localStorage, crypto, TextDecoder, AbortController, FormData */
// The Agent Service web UI: agents on the left, a streamed chat on the right. No framework and no
// build step. Model output is only ever inserted as text (textContent / Text nodes), never as HTML.

// Relative to the page (/ui/), so the UI also works behind a proxy that mounts the server on a prefix.
const API = new URL('../api/v1/', window.location.href);
const TOKEN_KEY = 'agent-service.token';
const AGENT_KEY = 'agent-service.agent';
const sessionStoreKey = (agentId) => `agent-service.session.${agentId}`;

const $ = (id) => document.getElementById(id);
const ui = {
  demoBadge: $('demo-badge'),
  logout: $('logout-button'),
  refresh: $('refresh-button'),
  agentsStatus: $('agents-status'),
  agentList: $('agent-list'),
  chatTitle: $('chat-title'),
  sessionLabel: $('session-label'),
  newConversation: $('new-button'),
  transcript: $('transcript'),
  emptyNote: $('empty-note'),
  composer: $('composer'),
  input: $('message-input'),
  send: $('send-button'),
  stop: $('stop-button'),
  loginDialog: $('login-dialog'),
  loginForm: $('login-form'),
  loginError: $('login-error'),
};

const state = { agents: [], agentId: null, controller: null };

/** Creates an element whose content is plain text (never parsed as HTML). */
function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

// ---- API access -------------------------------------------------------------------------------

class UnauthorizedError extends Error {}

const token = () => sessionStorage.getItem(TOKEN_KEY);

async function errorText(response) {
  try {
    const body = await response.json();
    if (typeof body?.error === 'string') return body.error;
  } catch {
    // Not JSON (a proxy page, say): the status line is the best we have.
  }
  return `${response.status} ${response.statusText}`.trim();
}

/** fetch against /api/v1 with the token; a non-2xx answer throws its {error} text. */
async function api(path, { method = 'GET', body, headers = {}, signal } = {}) {
  const response = await fetch(new URL(path, API), {
    method,
    signal,
    headers: {
      ...(token() ? { authorization: `Bearer ${token()}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.status === 401) {
    sessionStorage.removeItem(TOKEN_KEY);
    showLogin();
    throw new UnauthorizedError(await errorText(response));
  }
  if (!response.ok) throw new Error(await errorText(response));
  return response;
}

/** Yields the payload of each `data:` line of a server-sent-events body (our frames are one line each). */
async function* sseData(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buffer += decoder.decode(value, { stream: !done });
      const lines = buffer.split('\n');
      buffer = done ? '' : lines.pop();
      for (const line of lines) if (line.startsWith('data:')) yield line.slice(5).trim();
      if (done) return;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

// ---- Login --------------------------------------------------------------------------------------

function showLogin() {
  ui.logout.hidden = true;
  if (ui.loginDialog.open) return;
  ui.loginError.hidden = true;
  ui.loginDialog.showModal();
  ui.loginForm.elements.username.focus();
}

async function login(event) {
  event.preventDefault();
  const form = new FormData(ui.loginForm);
  try {
    const response = await api('auth/login', {
      method: 'POST',
      body: { username: String(form.get('username')), password: String(form.get('password')) },
    });
    const { token: jwt } = await response.json();
    sessionStorage.setItem(TOKEN_KEY, jwt);
    ui.loginForm.elements.password.value = '';
    ui.loginDialog.close();
    ui.logout.hidden = false;
    await loadAll();
  } catch (error) {
    ui.loginError.textContent = error.message;
    ui.loginError.hidden = false;
  }
}

// ---- Agents -------------------------------------------------------------------------------------

const agentName = (agent) => agent.ruleChain.name || agent.ruleChain.id;
const currentAgent = () => state.agents.find((agent) => agent.ruleChain.id === state.agentId);

async function loadModels() {
  try {
    const models = await (await api('config/models')).json();
    ui.demoBadge.hidden = models.demo !== true;
  } catch {
    // The badge is a hint only; a 401 has already opened the login form.
  }
}

async function loadAgents() {
  ui.agentsStatus.textContent = 'Loading…';
  ui.agentsStatus.className = 'muted';
  ui.agentsStatus.hidden = false;
  try {
    const agents = [];
    for (let page = 1; ; page += 1) {
      const body = await (await api(`agents?page=${page}&size=100`)).json();
      agents.push(...body.data);
      if (body.data.length === 0 || agents.length >= body.total) break;
    }
    state.agents = agents;
    ui.agentsStatus.textContent = agents.length === 0 ? 'No agents yet.' : '';
    ui.agentsStatus.hidden = agents.length > 0;
    const usable = agents.filter((agent) => agent.status?.loaded !== false);
    const wanted = state.agentId ?? localStorage.getItem(AGENT_KEY);
    const chosen = usable.find((agent) => agent.ruleChain.id === wanted) ?? usable[0];
    renderAgents();
    const chosenId = chosen?.ruleChain.id ?? null;
    if (chosenId !== state.agentId) selectAgent(chosenId);
  } catch (error) {
    const signedOut = error instanceof UnauthorizedError;
    ui.agentsStatus.textContent = signedOut ? 'Sign in to see the agents.' : error.message;
    ui.agentsStatus.className = signedOut ? 'muted' : 'error-text';
  }
}

function renderAgents() {
  ui.agentList.replaceChildren(
    ...state.agents.map((agent) => {
      const id = agent.ruleChain.id;
      const loaded = agent.status?.loaded !== false;
      const item = el('li');
      const button = el('button', 'agent-button');
      button.type = 'button';
      button.dataset.agentId = id;
      button.append(el('span', 'agent-name', agentName(agent)), el('span', 'agent-id', id));
      const description = agent.ruleChain.additionalInfo?.description;
      if (typeof description === 'string' && description)
        button.append(el('span', 'agent-description', description));
      if (id === state.agentId) button.setAttribute('aria-current', 'true');
      item.append(button);
      if (!loaded) {
        button.disabled = true;
        const error = el('p', 'agent-error', `Not loaded: ${agent.status?.error ?? 'unknown error'}`);
        error.id = `agent-error-${id}`;
        button.setAttribute('aria-describedby', error.id);
        item.append(error);
      }
      return item;
    }),
  );
}

function selectAgent(agentId) {
  state.controller?.abort();
  state.agentId = agentId;
  if (agentId) localStorage.setItem(AGENT_KEY, agentId);
  for (const button of ui.agentList.querySelectorAll('.agent-button')) {
    if (button.dataset.agentId === agentId) button.setAttribute('aria-current', 'true');
    else button.removeAttribute('aria-current');
  }
  const agent = currentAgent();
  ui.chatTitle.textContent = agent ? agentName(agent) : 'Choose an agent';
  ui.input.disabled = !agent;
  ui.send.disabled = !agent;
  ui.newConversation.disabled = !agent;
  resetTranscript();
  if (agent) ui.input.focus();
}

// ---- Sessions -----------------------------------------------------------------------------------

function newSessionId() {
  // getRandomValues also works on plain http, where crypto.randomUUID is unavailable.
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `ui-${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

function sessionIdFor(agentId) {
  let id = localStorage.getItem(sessionStoreKey(agentId));
  if (!id) {
    id = newSessionId();
    localStorage.setItem(sessionStoreKey(agentId), id);
  }
  return id;
}

function resetTranscript() {
  const agent = currentAgent();
  ui.transcript.replaceChildren(ui.emptyNote);
  ui.emptyNote.hidden = false;
  ui.sessionLabel.textContent = agent ? `Conversation ${sessionIdFor(agent.ruleChain.id).slice(3, 11)}` : '';
  ui.emptyNote.textContent = agent
    ? `Say hello to ${agentName(agent)}. The agent remembers this conversation, even after a reload, until you start a new one.`
    : 'Pick an agent, then type a message below.';
}

async function newConversation() {
  const agentId = state.agentId;
  if (!agentId) return;
  state.controller?.abort();
  ui.newConversation.disabled = true;
  try {
    const body = { agentId, sessionKey: sessionIdFor(agentId), channel: 'api', scope: 'per_peer' };
    await api('sessions/clear', { method: 'POST', body });
    localStorage.setItem(sessionStoreKey(agentId), newSessionId());
    resetTranscript();
    ui.input.focus();
  } catch (error) {
    addNotice(`Could not start a new conversation: ${error.message}`);
  } finally {
    ui.newConversation.disabled = !currentAgent();
  }
}

// ---- Transcript ---------------------------------------------------------------------------------

/** Runs `change`, then keeps the view pinned to the bottom if the reader was already there. */
function keepScrolled(change) {
  const { scrollTop, scrollHeight, clientHeight } = ui.transcript;
  const atBottom = scrollHeight - scrollTop - clientHeight < 80;
  const result = change();
  if (atBottom) ui.transcript.scrollTop = ui.transcript.scrollHeight;
  return result;
}

function addMessage(role, label) {
  return keepScrolled(() => {
    ui.emptyNote.hidden = true;
    const article = el('article', `message ${role}`);
    const body = el('div', 'message-body');
    article.append(el('p', 'message-author', label), body);
    ui.transcript.append(article);
    return article;
  });
}

function addNotice(text) {
  keepScrolled(() => ui.transcript.append(el('p', 'notice error-text', text)));
}

function prettyJson(text) {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return String(text ?? '');
  }
}

/** One assistant answer: text segments with tool-call blocks between them, filled as events arrive. */
class ReplyView {
  constructor(article) {
    this.article = article;
    this.body = article.querySelector('.message-body');
    this.segment = null;
    this.tools = new Map();
    article.classList.add('streaming');
  }

  text(delta) {
    keepScrolled(() => {
      if (!this.segment) this.body.append((this.segment = el('div', 'message-text')));
      this.segment.append(delta);
    });
  }

  toolBlock(call) {
    let block = this.tools.get(call.toolCallId);
    if (block) return block;
    const details = el('details', 'tool-call');
    const summary = el('summary');
    const status = el('span', 'tool-status running', 'running');
    summary.append(status, el('code', 'tool-name', call.toolCallName ?? 'tool'));
    if (call.toolType) summary.append(el('span', 'tool-type', call.toolType));
    details.append(summary);
    block = { details, status };
    this.tools.set(call.toolCallId, block);
    keepScrolled(() => this.body.append(details));
    this.segment = null; // text after a tool call starts a new paragraph below it
    return block;
  }

  section(block, title, text) {
    const section = el('div', 'tool-section');
    section.append(el('p', 'tool-label', title), el('pre', 'tool-text', text));
    keepScrolled(() => block.details.append(section));
  }

  toolStart(call) {
    this.section(this.toolBlock(call), 'Arguments', prettyJson(call.arguments ?? ''));
  }

  toolResult(call) {
    const block = this.toolBlock(call);
    block.status.textContent = 'done';
    block.status.className = 'tool-status done';
    this.section(block, 'Result', String(call.content ?? ''));
  }

  note(text, className) {
    keepScrolled(() => this.body.append(el('p', `notice ${className}`, text)));
  }

  finish() {
    this.article.classList.remove('streaming');
    for (const block of this.tools.values()) {
      if (block.status.textContent !== 'running') continue;
      block.status.textContent = 'interrupted';
      block.status.className = 'tool-status interrupted';
    }
    if (!this.body.hasChildNodes()) this.note('(no answer)', 'muted');
  }
}

// ---- Chat ---------------------------------------------------------------------------------------

function setBusy(busy) {
  ui.send.hidden = busy;
  ui.stop.hidden = !busy;
  ui.transcript.setAttribute('aria-busy', String(busy));
}

function parseFrame(data) {
  try {
    return JSON.parse(data);
  } catch {
    return undefined; // a frame we cannot read is skipped, not fatal
  }
}

/** Handles one parsed frame; answers true when the frame ends the stream. */
function applyFrame(view, frame) {
  if (typeof frame?.error === 'string') {
    view.note(frame.error, 'error-text');
    return true;
  }
  const delta = frame?.choices?.[0]?.delta;
  if (typeof delta?.content === 'string' && delta.content !== '') view.text(delta.content);
  const call = delta?.tool_calls?.[0];
  if (call?.type === 'TOOL_CALL_START') view.toolStart(call);
  else if (call?.type === 'TOOL_CALL_RESULT') view.toolResult(call);
  return false;
}

async function send(text) {
  const agent = currentAgent();
  if (!agent || state.controller) return;
  const agentId = agent.ruleChain.id;
  addMessage('user', 'You')
    .querySelector('.message-body')
    .append(el('div', 'message-text', text));
  ui.transcript.scrollTop = ui.transcript.scrollHeight; // a message you just sent always comes into view
  const view = new ReplyView(addMessage('assistant', agentName(agent)));
  const controller = new AbortController();
  state.controller = controller;
  setBusy(true);
  try {
    const response = await api('chat/completions', {
      method: 'POST',
      signal: controller.signal,
      // agui adds the tool-call events to the stream, so tool use is visible as it happens.
      headers: { 'x-stream-protocol': 'agui', accept: 'text/event-stream' },
      body: {
        model: agentId,
        stream: true,
        sessionId: sessionIdFor(agentId),
        messages: [{ role: 'user', content: text }],
      },
    });
    let ended = false;
    for await (const data of sseData(response)) {
      ended = data === '[DONE]' || applyFrame(view, parseFrame(data));
      if (ended) break;
    }
    if (!ended) view.note('The connection closed before the answer was complete.', 'error-text');
  } catch (error) {
    if (controller.signal.aborted) view.note('Stopped.', 'muted');
    else
      view.note(
        error instanceof UnauthorizedError ? `${error.message}. Sign in, then send again.` : error.message,
        'error-text',
      );
    if (error instanceof UnauthorizedError && !ui.input.value) ui.input.value = text;
  } finally {
    if (state.controller === controller) state.controller = null;
    setBusy(false);
    view.finish();
  }
}

// ---- Wiring -------------------------------------------------------------------------------------

async function loadAll() {
  ui.logout.hidden = !token();
  await Promise.all([loadModels(), loadAgents()]);
}

ui.composer.addEventListener('submit', (event) => {
  event.preventDefault();
  const text = ui.input.value.trim();
  if (!text || state.controller) return;
  ui.input.value = '';
  void send(text);
});

ui.input.addEventListener('keydown', (event) => {
  // isComposing: Enter also confirms an IME composition (Chinese, Japanese...), which must not send.
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    ui.composer.requestSubmit();
  } else if (event.key === 'Escape' && state.controller) {
    state.controller.abort();
  }
});

ui.stop.addEventListener('click', () => state.controller?.abort());
ui.newConversation.addEventListener('click', () => void newConversation());
ui.refresh.addEventListener('click', () => void loadAll());
ui.agentList.addEventListener('click', (event) => {
  const button = event.target.closest('.agent-button');
  if (button && !button.disabled && button.dataset.agentId !== state.agentId)
    selectAgent(button.dataset.agentId);
});
ui.loginForm.addEventListener('submit', (event) => void login(event));
// Nothing works without a login once the server asks for one, so Escape must not dismiss the form.
ui.loginDialog.addEventListener('cancel', (event) => event.preventDefault());
ui.logout.addEventListener('click', () => {
  sessionStorage.removeItem(TOKEN_KEY);
  // Signing out hides what the last user saw; a token that merely expires keeps the page as it is.
  state.agents = [];
  renderAgents();
  selectAgent(null);
  void loadAll();
});

void loadAll();
