// `providers list|add|set-key|default|delete`: model providers (OpenAI-compatible endpoints).
import type { Command } from 'commander';
import { PipedLines, readSecret } from '../prompt.ts';
import { deleteCommand, enc, withJson, type Context } from '../context.ts';
import type { ProviderView } from '../../resources/models/models.schema.ts';

export function registerProviders(program: Command, cx: Context): void {
  const providers = program.command('providers').description('model providers (OpenAI-compatible endpoints)');

  withJson(providers.command('list').description('list the providers')).action(
    async (options: { json?: boolean }, command: Command) => {
      const api = await cx.api(command);
      const list = await api.get<ProviderView[]>('/config/models/providers');
      cx.print(options.json, list, () =>
        cx.table(
          ['ID', 'DEFAULT', 'MODEL', 'KEY', 'BASE URL'],
          list.map((p) => [p.id, p.default ? '*' : '', p.model, p.hasApiKey ? 'set' : 'none', p.base_url]),
        ),
      );
    },
  );

  providers
    .command('add')
    .description('add a provider; the first one added becomes the default')
    .argument('<id>', 'provider id, e.g. openai')
    .requiredOption('-u, --base-url <url>', 'OpenAI-compatible base URL, e.g. https://api.openai.com/v1')
    .option('-m, --model <model>', 'default model of the provider')
    .option('-n, --name <name>', 'display name')
    .option('-k, --api-key <key>', 'API key (or --api-key-stdin, which keeps it out of the process list)')
    .option('--api-key-stdin', 'read the API key from stdin')
    .addHelpText(
      'after',
      '\nExample:\n  echo "$OPENAI_API_KEY" | agent-service providers add openai -u https://api.openai.com/v1 -m gpt-4o-mini --api-key-stdin',
    )
    .action(
      async (
        id: string,
        options: { baseUrl: string; model?: string; name?: string; apiKey?: string; apiKeyStdin?: boolean },
        command: Command,
      ) => {
        const apiKey = options.apiKeyStdin
          ? await readSecret(cx.io, 'API key: ', new PipedLines(cx.io))
          : options.apiKey;
        const api = await cx.api(command);
        await api.json('POST', '/config/models/providers', {
          body: {
            id,
            base_url: options.baseUrl,
            ...(options.name ? { name: options.name } : {}),
            ...(options.model ? { model: options.model } : {}),
            ...(apiKey ? { api_key: apiKey } : {}),
          },
        });
        cx.ok(`provider ${id} added`);
      },
    );

  providers
    .command('set-key')
    .description('set the API key of a provider (prompted with echo off, or read from stdin)')
    .argument('<id>', 'provider id')
    .action(async (id: string, _options: unknown, command: Command) => {
      const apiKey = await readSecret(cx.io, `API key of ${id}: `, new PipedLines(cx.io));
      const api = await cx.api(command);
      await api.json('PUT', `/config/models/providers/${enc(id)}/api-key`, { body: { apiKey } });
      cx.ok(`API key of ${id} set`);
    });

  providers
    .command('default')
    .description('make a provider the default one')
    .argument('<id>', 'provider id')
    .action(async (id: string, _options: unknown, command: Command) => {
      const api = await cx.api(command);
      await api.json('PUT', '/config/models', { body: { default: id } });
      cx.ok(`${id} is the default provider`);
    });

  deleteCommand(providers, cx, 'provider', (id) => `/config/models/providers/${enc(id)}`);
}
