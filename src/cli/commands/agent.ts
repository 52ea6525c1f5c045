// `agent run` (the default: `agent -m hi`) sends one message; `agent chat` is the interactive chat.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Command } from 'commander';
import { describeToolCall, readChatStream, streamTurn } from '../chat-stream.ts';
import { CliError, usageError } from '../errors.ts';
import { readAllStdin } from '../prompt.ts';
import type { Context } from '../context.ts';
import { runChat } from './agent-chat.ts';

interface RunOptions {
  message?: string[];
  agent: string;
  session?: string;
  stream?: boolean;
  json?: boolean;
  file?: string[];
}

async function messageOf(cx: Context, options: RunOptions): Promise<string> {
  const parts = [...(options.message ?? [])];
  if (parts.length === 0 && !cx.io.stdin.isTTY) {
    const piped = (await readAllStdin(cx.io)).trim();
    if (piped) parts.push(piped);
  }
  for (const file of options.file ?? []) {
    const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new CliError(`cannot read ${file}: ${error.code ?? error.message}`);
    });
    parts.push(`File ${basename(file)}:\n\`\`\`\n${text}\n\`\`\``);
  }
  if (parts.length === 0)
    throw usageError('give a message: agent "..." or -m "..." (or -f FILE, or pipe it on stdin)');
  return parts.join('\n\n');
}

async function runOnce(cx: Context, options: RunOptions, command: Command): Promise<void> {
  const content = await messageOf(cx, options);
  const api = await cx.api(command, true);
  const turn = { agent: options.agent, session: options.session, content };
  if (!options.stream) {
    const completion = await cx.spin(
      `${options.agent} is thinking`,
      api.json<{ choices: Array<{ message: { content: string } }> }>('POST', '/chat/completions', {
        body: {
          model: turn.agent,
          stream: false,
          ...(turn.session ? { sessionId: turn.session } : {}),
          messages: [{ role: 'user', content }],
        },
      }),
    );
    cx.print(options.json, completion, () => `${completion.choices[0]?.message.content ?? ''}\n`);
    return;
  }
  const response = await streamTurn(api, turn);
  let ended = true;
  for await (const event of readChatStream(response)) {
    if (options.json) cx.out(`${JSON.stringify(event)}\n`);
    else if (event.type === 'text-delta') {
      cx.out(event.text);
      ended = event.text.endsWith('\n');
    } else cx.io.stderr.write(`${cx.errStyle.dim(describeToolCall(event))}\n`);
  }
  if (!options.json && !ended) cx.out('\n');
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export function registerAgent(program: Command, cx: Context): void {
  const agent = program.command('agent').description('talk to an agent: one message (run) or a chat');

  agent
    .command('run', { isDefault: true })
    .description('send one message and print the answer ("run" may be left out)')
    .argument('[message...]', 'the message, as words (joined by spaces, after any -m)')
    .option('-m, --message <text>', 'the message (repeatable; else stdin)', collect)
    .option('-a, --agent <id>', 'agent id', 'main')
    .option('-s, --session <id>', 'session id: turns with the same id share the conversation')
    .option('--stream', 'print the answer as it is written, and the tool calls as they run (on stderr)')
    .option('--json', 'print the completion as JSON (with --stream: one event per line)')
    .option('-f, --file <path>', "add a file's text to the message (repeatable)", collect)
    .addHelpText(
      'after',
      '\nExamples:\n  agent-service agent "list files"\n  agent-service agent run -a writer -s draft-1 --stream -m "continue"\n  git diff | agent-service agent -m "review this diff" -f NOTES.md',
    )
    .action((words: string[], options: RunOptions, command: Command) =>
      runOnce(
        cx,
        words.length > 0 ? { ...options, message: [...(options.message ?? []), words.join(' ')] } : options,
        command,
      ),
    );

  agent
    .command('chat')
    .description('interactive chat: history kept in a session, answers streamed, tool calls shown')
    .option('-a, --agent <id>', 'agent id', 'main')
    .option('-s, --session <id>', 'continue this session (default: a new one)')
    .addHelpText(
      'after',
      '\nIn the chat: /new starts a new session, /agent <id> switches agent, /help, /exit.\n' +
        'Ctrl-C stops the answer being written; Ctrl-C twice at the prompt exits.',
    )
    .action(async (options: { agent: string; session?: string }, command: Command) => {
      await runChat(cx, await cx.api(command, true), options);
    });

  // The 0.1 command, kept for scripts: `chat [--agent ID] [--session ID] MESSAGE` streams one answer;
  // without a message it opens the interactive chat.
  program
    .command('chat', { hidden: true })
    .argument('[message...]')
    .option('-a, --agent <id>', 'agent id', 'main')
    .option('-s, --session <id>', 'session id')
    .action(async (words: string[], options: { agent: string; session?: string }, command: Command) => {
      if (words.length > 0 || !cx.io.stdin.isTTY)
        return runOnce(
          cx,
          { ...options, stream: true, ...(words.length > 0 ? { message: [words.join(' ')] } : {}) },
          command,
        );
      return runChat(cx, await cx.api(command, true), options);
    });
}
