// `workspace ls|cat|put|rm -a <agent>`: the files of an agent's workspace.
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { CliError } from '../errors.ts';
import { confirmOrYes, readAllStdin } from '../prompt.ts';
import { enc, withJson, type Context } from '../context.ts';
import type { WorkspaceEntry } from '../../resources/workspace/workspace.schema.ts';

export function registerWorkspace(program: Command, cx: Context): void {
  const workspace = program.command('workspace').alias('ws').description("files in an agent's workspace");
  const agentOption = (command: Command): Command => command.option('-a, --agent <id>', 'agent id', 'main');

  withJson(
    agentOption(
      workspace.command('ls').description('list a folder of the workspace').argument('[path]', 'folder', ''),
    ),
  ).action(async (path: string, options: { agent: string; json?: boolean }, command: Command) => {
    const api = await cx.api(command);
    const entries = await api.get<WorkspaceEntry[]>(
      `/agents/${enc(options.agent)}/workspace/entries`,
      path ? { path } : {},
    );
    cx.print(options.json, entries, () =>
      cx.table(
        ['NAME', 'SIZE', 'MODIFIED'],
        entries.map((entry) => [
          entry.isDir ? `${entry.name}/` : entry.name,
          entry.isDir ? '' : String(entry.size ?? ''),
          entry.modTime ?? '',
        ]),
      ),
    );
  });

  withJson(
    agentOption(workspace.command('cat').description('print a file').argument('<path>', 'file path')),
  ).action(async (path: string, options: { agent: string; json?: boolean }, command: Command) => {
    const api = await cx.api(command);
    const file = await api.get<{ content: string }>(`/agents/${enc(options.agent)}/workspace/file`, { path });
    cx.print(options.json, file, () => file.content);
  });

  agentOption(
    workspace
      .command('put')
      .description('write a file from a local file or stdin (created or replaced)')
      .argument('<path>', 'path in the workspace')
      .argument('[local]', 'local file to upload (else stdin)'),
  )
    .addHelpText('after', '\nExample:\n  agent-service workspace put AGENTS.md ./AGENTS.md -a main')
    .action(async (path: string, local: string | undefined, options: { agent: string }, command: Command) => {
      const content = local
        ? await readFile(local, 'utf8').catch((error: NodeJS.ErrnoException) => {
            throw new CliError(`cannot read ${local}: ${error.code ?? error.message}`);
          })
        : await readAllStdin(cx.io);
      const api = await cx.api(command);
      const base = `/agents/${enc(options.agent)}/workspace`;
      try {
        await api.send('PUT', `${base}/file`, { query: { path }, body: { content } });
      } catch (error) {
        if (!(error instanceof CliError) || !/HTTP 404/.test(error.message)) throw error;
        await api.send('POST', `${base}/files`, { body: { path, content } });
      }
      cx.ok(`wrote ${path} (${Buffer.byteLength(content)} bytes) in ${options.agent}'s workspace`);
    });

  agentOption(
    workspace
      .command('rm')
      .description('delete a file or folder (a folder that is not empty: asks first)')
      .argument('<path>', 'path')
      .option('-y, --yes', 'do not ask (needed for a folder that is not empty when stdin is not a terminal)'),
  ).action(async (path: string, options: { agent: string; yes?: boolean }, command: Command) => {
    const api = await cx.api(command);
    const inside = await api
      .get<WorkspaceEntry[]>(`/agents/${enc(options.agent)}/workspace/entries`, { path })
      .catch(() => undefined); // a file (or nothing there): the delete itself says which
    if (inside && inside.length > 0) {
      const question = `Delete the folder ${path} and the ${inside.length} entries in it?`;
      if (
        !(await confirmOrYes(
          cx.io,
          options.yes,
          question,
          `deleting the folder ${path}, which is not empty,`,
        ))
      ) {
        cx.note('not deleted');
        return;
      }
    }
    await api.send('DELETE', `/agents/${enc(options.agent)}/workspace/entry`, { query: { path } });
    cx.ok(`deleted ${path} from ${options.agent}'s workspace`);
  });
}
