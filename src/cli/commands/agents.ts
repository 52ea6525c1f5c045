// `agents list|info|add|delete|reload`: the agents (rule chains with an ai/agent node).
import type { Command } from 'commander';
import { confirm } from '../prompt.ts';
import { usageError } from '../errors.ts';
import { enc, withJson, type Context } from '../context.ts';
import type { ChainDefinition, ChainView } from '../../chains/chain-view.ts';

/** An agent as GET /agents answers it (the template has no status). */
export type AgentDefinition = ChainDefinition & { status?: ChainView['status'] };

function modelOf(agent: AgentDefinition): string {
  const node = (agent.metadata.nodes ?? []).find((n) => n.type === 'ai/agent');
  const model = node?.configuration?.['model'];
  return typeof model === 'string' && model ? model : '(default)';
}

function state(agent: AgentDefinition): string {
  if (!agent.status) return '';
  return agent.status.loaded ? 'loaded' : `not loaded: ${agent.status.error ?? 'unknown'}`;
}

export function registerAgents(program: Command, cx: Context): void {
  const agents = program.command('agents').description('list and manage agents');

  withJson(agents.command('list').alias('ls').description('list the agents')).action(
    async (options: { json?: boolean }, command: Command) => {
      const api = await cx.api(command);
      const page = await api.all<AgentDefinition>('/agents');
      cx.print(options.json, page.data, () =>
        cx.table(
          ['ID', 'NAME', 'MODEL', 'STATUS'],
          page.data.map((a) => [a.ruleChain.id, a.ruleChain.name ?? '', modelOf(a), state(a)]),
        ),
      );
    },
  );

  withJson(agents.command('info').description('show one agent').argument('<id>', 'agent id')).action(
    async (id: string, options: { json?: boolean }, command: Command) => {
      const api = await cx.api(command);
      const agent = await api.get<AgentDefinition>(`/agents/${enc(id)}`);
      const node = (agent.metadata.nodes ?? []).find((n) => n.type === 'ai/agent');
      const tools =
        (node?.configuration?.['tools'] as
          Array<{ type: string; name?: string; targetId?: string }> | undefined) ?? [];
      cx.print(options.json, agent, () =>
        [
          `id:          ${agent.ruleChain.id}`,
          `name:        ${agent.ruleChain.name}`,
          `description: ${String(agent.ruleChain.additionalInfo?.['description'] ?? '')}`,
          `model:       ${modelOf(agent)}`,
          `tools:       ${tools.map((t) => t.name ?? t.targetId ?? t.type).join(', ') || '(none)'}`,
          `status:      ${state(agent)}`,
          '',
        ].join('\n'),
      );
    },
  );

  agents
    .command('add')
    .description("create an agent from the server's agent template")
    .argument('<id>', 'agent id (letters, digits, - and _)')
    .option('-n, --name <name>', 'display name')
    .option('-m, --model <model>', "model (default: the default provider's)")
    .option('-d, --description <text>', 'description')
    .option('-p, --prompt <text>', "system prompt (default: the template's)")
    .addHelpText(
      'after',
      '\nExample:\n  agent-service agents add writer -n "Writer" -m gpt-4o-mini -d "Drafts texts"',
    )
    .action(
      async (
        id: string,
        options: { name?: string; model?: string; description?: string; prompt?: string },
        command: Command,
      ) => {
        const api = await cx.api(command);
        const agent = await api.get<AgentDefinition>('/agent-template');
        agent.ruleChain.id = id;
        agent.ruleChain.name = options.name ?? id;
        if (options.description !== undefined)
          agent.ruleChain.additionalInfo = {
            ...agent.ruleChain.additionalInfo,
            description: options.description,
          };
        const node = (agent.metadata.nodes ?? []).find((n) => n.type === 'ai/agent');
        if (node && (options.model !== undefined || options.prompt !== undefined)) {
          node.configuration = {
            ...node.configuration,
            ...(options.model !== undefined ? { model: options.model } : {}),
            ...(options.prompt !== undefined ? { systemPrompt: options.prompt } : {}),
          };
        }
        await api.json('POST', '/agents', { body: agent });
        cx.ok(`agent ${id} created; talk to it with: agent-service agent chat -a ${id}`);
      },
    );

  agents
    .command('delete')
    .alias('rm')
    .description('delete an agent with its chains, workspace and sessions')
    .argument('<id>', 'agent id')
    .option('-f, --force', 'do not ask (needed when stdin is not a terminal)')
    .action(async (id: string, options: { force?: boolean }, command: Command) => {
      if (!options.force) {
        if (!cx.io.stdin.isTTY)
          throw usageError(`deleting agent ${id} needs --force when stdin is not a terminal`);
        if (!(await confirm(cx.io, `Delete agent ${id} with its workspace and sessions?`))) {
          cx.note('not deleted');
          return;
        }
      }
      const api = await cx.api(command);
      await api.send('DELETE', `/agents/${enc(id)}`);
      cx.ok(`agent ${id} deleted`);
    });

  agents
    .command('reload')
    .description("re-read an agent's file (picks up hand edits)")
    .argument('[id]', 'agent id', 'main')
    .action(async (id: string, _options: unknown, command: Command) => {
      const api = await cx.api(command);
      await api.json('POST', `/agents/${enc(id)}/reload`);
      cx.ok(`agent ${id} reloaded`);
    });
}
