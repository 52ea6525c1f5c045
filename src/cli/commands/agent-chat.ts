// The interactive chat of `agent chat`: a readline prompt, one streamed turn per line, tool calls
// shown as they run. Ctrl-C stops the turn being written; at the prompt, a second Ctrl-C exits.
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { describeToolCall, readChatStream, streamTurn } from '../chat-stream.ts';
import type { ApiClient } from '../client.ts';
import type { Context } from '../context.ts';
import { sessionMessages, transcriptLines } from '../transcript.ts';

const HELP = `/new          start a new session (the agent forgets this conversation)
/agent <id>   talk to another agent (in a new session)
/session      show the session id (continue later with: agent chat -s <id>)
/help         this text
/exit         leave (or Ctrl-D; Ctrl-C twice)
`;

/** Messages shown when a chat resumes a session. */
const RESUME_MESSAGES = 20;

function newSession(): string {
  return `cli-${randomUUID().slice(0, 8)}`;
}

export async function runChat(
  cx: Context,
  api: ApiClient,
  options: { agent: string; session?: string },
): Promise<void> {
  const s = cx.style;
  const terminal = cx.io.stdin.isTTY === true && cx.io.stdout.isTTY === true;
  const state = { agent: options.agent, session: options.session ?? newSession() };
  let turn: AbortController | undefined;
  let armed = false;
  // Read before the prompt exists: readline must not start reading stdin while this is awaited.
  const earlier = options.session ? await sessionMessages(api, state.agent, options.session) : undefined;
  const rl = createInterface({
    input: cx.io.stdin,
    output: cx.io.stdout as NodeJS.WritableStream,
    terminal,
    historySize: 200,
  });
  const prompt = (): void => {
    rl.setPrompt(terminal ? `${s.cyan(state.agent)}${s.dim('>')} ` : '');
    rl.prompt();
  };
  const interrupt = (): void => {
    if (turn) {
      turn.abort();
      return;
    }
    if (armed || !terminal) {
      rl.close();
      return;
    }
    armed = true;
    cx.out(`\n${s.dim('(press Ctrl-C again to exit, or type /exit)')}\n`);
    prompt();
  };
  rl.on('SIGINT', interrupt);
  const removeSignal = cx.io.onInterrupt(interrupt);

  if (terminal)
    cx.out(
      `${s.bold(`Chatting with ${state.agent}`)} at ${api.url} ${s.dim(`(session ${state.session}; /help for commands)`)}\n`,
    );
  // Resuming a session: the conversation so far (its last messages), so the user knows where it stands.
  if (options.session) {
    if (earlier === undefined)
      cx.out(`${s.dim(`(no earlier messages in ${options.session}: a new session)`)}\n`);
    else {
      const shown = earlier.filter((message) => message.role === 'user' || message.role === 'assistant');
      const last = shown.slice(-RESUME_MESSAGES);
      if (shown.length > last.length)
        cx.out(`${s.dim(`(${shown.length - last.length} earlier messages not shown)`)}\n`);
      cx.out(transcriptLines(last, s.bold));
    }
  }
  prompt();
  try {
    for await (const raw of rl) {
      armed = false;
      const line = raw.trim();
      if (!line) {
        prompt();
        continue;
      }
      if (line.startsWith('/')) {
        const [name, ...rest] = line.split(/\s+/);
        if (name === '/exit' || name === '/quit') break;
        if (name === '/help') cx.out(HELP);
        else if (name === '/new') {
          state.session = newSession();
          cx.out(`${s.dim(`new session ${state.session}`)}\n`);
        } else if (name === '/session') cx.out(`${state.session}\n`);
        else if (name === '/agent' && rest[0]) {
          const next = rest[0];
          // Only an agent the server has (and this credential may use): a typo stays where it was.
          const known = await api.get(`/models/${encodeURIComponent(next)}`).then(
            () => true,
            (error: unknown) => {
              cx.out(`${s.yellow(`cannot switch to ${next}: ${(error as Error).message}`)}\n`);
              return false;
            },
          );
          if (known) {
            state.agent = next;
            state.session = newSession();
            cx.out(`${s.dim(`now talking to ${state.agent} (session ${state.session})`)}\n`);
          }
        } else if (name === '/agent')
          cx.out(`${s.dim(`talking to ${state.agent}; switch with /agent <id>`)}\n`);
        else cx.out(`${s.yellow(`unknown command ${name}`)}; /help lists them\n`);
        prompt();
        continue;
      }
      await runTurn(line);
      prompt();
    }
  } finally {
    removeSignal();
    rl.close();
  }

  async function runTurn(content: string): Promise<void> {
    turn = new AbortController();
    let ended = true;
    try {
      const response = await streamTurn(
        api,
        { agent: state.agent, session: state.session, content },
        turn.signal,
      );
      for await (const event of readChatStream(response)) {
        if (event.type === 'text-delta') {
          cx.out(event.text);
          ended = event.text.endsWith('\n');
        } else {
          cx.out(
            `${ended ? '' : '\n'}${s.dim(describeToolCall(event, terminal ? Math.max(40, (cx.io.stdout.columns || 100) - 6) : 160))}\n`,
          );
          ended = true;
        }
      }
      if (!ended) cx.out('\n');
    } catch (error) {
      if (!ended) cx.out('\n');
      if (turn.signal.aborted) cx.out(`${s.yellow('(stopped)')}\n`);
      else cx.io.stderr.write(`${cx.errStyle.red('error:')} ${(error as Error).message}\n`);
    } finally {
      turn = undefined;
    }
  }
}
