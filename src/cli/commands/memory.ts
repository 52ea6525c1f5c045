// `memory search <query> -a <agent>`, `memory files -a <agent>`, `memory compact <session> -a
// <agent>`: an agent's memory files and compaction, through the REST API.
import type { Command } from 'commander';
import { enc, withJson, type Context } from '../context.ts';
import type { MemoryFilesAnswer, MemorySearchAnswer } from '../../resources/memory/memory.schema.ts';
import type { CompactAnswer } from '../../resources/sessions/sessions.schema.ts';

export function registerMemory(program: Command, cx: Context): void {
  const memory = program.command('memory').description("an agent's memory files and session compaction");
  const agentOption = (command: Command): Command => command.option('-a, --agent <id>', 'agent id', 'main');

  withJson(
    agentOption(
      memory
        .command('search')
        .description('keyword search over MEMORY.md and memory/*.md (best first)')
        .argument('<query...>', 'what to look for')
        .option('-n, --limit <count>', 'most results', '10'),
    ),
  )
    .addHelpText('after', '\nExample:\n  agent-service memory search order number A-7731 -a main')
    .action(
      async (
        words: string[],
        options: { agent: string; limit: string; json?: boolean },
        command: Command,
      ) => {
        const api = await cx.api(command);
        const { results } = await api.get<MemorySearchAnswer>(`/agents/${enc(options.agent)}/memory/search`, {
          q: words.join(' '),
          limit: options.limit,
        });
        cx.print(options.json, results, () =>
          results.length === 0
            ? 'no results'
            : results
                .map(
                  (hit) =>
                    `${hit.path}:${hit.startLine}-${hit.endLine}  (score ${hit.score})\n${hit.snippet.replace(/^/gm, '  ')}`,
                )
                .join('\n\n'),
        );
      },
    );

  withJson(agentOption(memory.command('files').description("list the agent's memory files"))).action(
    async (options: { agent: string; json?: boolean }, command: Command) => {
      const api = await cx.api(command);
      const { files } = await api.get<MemoryFilesAnswer>(`/agents/${enc(options.agent)}/memory/files`);
      cx.print(options.json, files, () =>
        cx.table(
          ['PATH', 'SIZE', 'MODIFIED'],
          files.map((file) => [file.path, String(file.size), file.modifiedAt]),
        ),
      );
    },
  );

  withJson(
    agentOption(
      memory
        .command('compact')
        .description('compact a session now (memory flush, then a summary; nothing is deleted)')
        .argument('<session>', 'the session id or full key'),
    ),
  ).action(async (session: string, options: { agent: string; json?: boolean }, command: Command) => {
    const api = await cx.api(command);
    const result = await api.json<CompactAnswer>(
      'POST',
      `/agents/${enc(options.agent)}/sessions/${enc(session)}/compact`,
    );
    cx.print(options.json, result, () =>
      result.compacted
        ? `✓ folded ${result.folded} messages into a summary${result.flushed ? ' (memory flushed first)' : ''}`
        : `nothing compacted: ${result.reason ?? 'unknown reason'}`,
    );
  });
}
