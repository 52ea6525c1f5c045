// `rules list|info|reload|execute`: rule chains, global or of an agent.
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { CliError, usageError } from '../errors.ts';
import { readAllStdin } from '../prompt.ts';
import { enc, withJson, type Context } from '../context.ts';
import type { AgentDefinition } from './agents.ts';

function base(agent: string | undefined): string {
  return agent ? `/agents/${enc(agent)}/rules` : '/rules';
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export function registerRules(program: Command, cx: Context): void {
  const rules = program.command('rules').description('rule chains: list, show, reload, run');

  withJson(
    rules
      .command('list')
      .alias('ls')
      .description('list rule chains (agents included)')
      .option('-a, --agent <id>', 'only the chains of this agent')
      .option('-t, --category <name>', 'only this category (e.g. agents)')
      .option('-l, --loaded', 'only loaded chains'),
  ).action(
    async (
      options: { agent?: string; category?: string; loaded?: boolean; json?: boolean },
      command: Command,
    ) => {
      const api = await cx.api(command);
      const query = {
        ...(options.category ? { category: options.category } : {}),
        ...(options.loaded ? { loaded: true } : {}),
      };
      const list = await api.all<AgentDefinition>(base(options.agent), query);
      cx.print(options.json, list.data, () =>
        cx.table(
          ['ID', 'NAME', 'CATEGORY', 'STATUS'],
          list.data.map((chain) => [
            chain.ruleChain.id,
            chain.ruleChain.name ?? '',
            String(chain.ruleChain.additionalInfo?.['category'] ?? ''),
            chain.status ? (chain.status.loaded ? 'loaded' : `not loaded: ${chain.status.error ?? ''}`) : '',
          ]),
        ),
      );
    },
  );

  withJson(
    rules
      .command('info')
      .description('print a rule chain definition (JSON)')
      .argument('<id>', 'chain id')
      .option('-a, --agent <id>', 'the chain belongs to this agent'),
  ).action(async (id: string, options: { agent?: string }, command: Command) => {
    const api = await cx.api(command);
    cx.print(true, await api.get(`${base(options.agent)}/${enc(id)}`), () => '');
  });

  rules
    .command('reload')
    .description('re-read a chain file; a broken file keeps the running version')
    .argument('<id>', 'chain id')
    .option('-a, --agent <id>', 'the chain belongs to this agent')
    .action(async (id: string, options: { agent?: string }, command: Command) => {
      const api = await cx.api(command);
      await api.json('POST', `${base(options.agent)}/${enc(id)}/reload`);
      cx.ok(`rule chain ${id} reloaded`);
    });

  rules
    .command('execute')
    .alias('run')
    .description('run a chain once: the data is the message, metadata from --meta; prints the result')
    .argument('<id>', 'chain id')
    .option('-d, --data <json>', 'message data (JSON or text; else -f, else stdin)')
    .option('-f, --file <path>', 'read the message data from a file')
    .option('--meta <key=value>', 'message metadata (repeatable)', collect)
    .option('-t, --type <msgType>', 'message type')
    .addHelpText(
      'after',
      '\nExample:\n  agent-service rules execute my-chain -d \'{"temperature": 41}\' --meta source=cli',
    )
    .action(
      async (
        id: string,
        options: { data?: string; file?: string; meta?: string[]; type?: string },
        command: Command,
      ) => {
        let text = options.data;
        if (text === undefined && options.file)
          text = await readFile(options.file, 'utf8').catch((error: NodeJS.ErrnoException) => {
            throw new CliError(`cannot read ${options.file}: ${error.code ?? error.message}`);
          });
        if (text === undefined) text = await readAllStdin(cx.io);
        let data: unknown = text;
        try {
          data = JSON.parse(text);
        } catch {
          // plain text is sent as a JSON string
        }
        const query: Record<string, string> = {};
        for (const pair of options.meta ?? []) {
          const equals = pair.indexOf('=');
          if (equals <= 0) throw usageError(`--meta expects key=value, got "${pair}"`);
          query[pair.slice(0, equals)] = pair.slice(equals + 1);
        }
        const api = await cx.api(command);
        const path = `/rules/${enc(id)}/execute${options.type ? `/${enc(options.type)}` : ''}`;
        // A chain answers JSON, or text when its result is TEXT: each is printed as what it is.
        const response = await api.send('POST', path, { body: data, query });
        const body = await response.text();
        const json = /^application\/json\b/i.test(response.headers.get('content-type') ?? '');
        let shown = body;
        if (json) {
          try {
            const answer: unknown = JSON.parse(body);
            shown = typeof answer === 'string' ? answer : JSON.stringify(answer, null, 2);
          } catch {
            // a JSON type with a body that is not JSON: print it as it came
          }
        }
        cx.out(shown.endsWith('\n') ? shown : `${shown}\n`);
      },
    );
}
