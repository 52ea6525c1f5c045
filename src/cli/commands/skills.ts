// `skills list|info|create|upload|delete`: global skills, or an agent's own with -a.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Command } from 'commander';
import { CliError, usageError } from '../errors.ts';
import { readAllStdin } from '../prompt.ts';
import { enc, withJson, type Context } from '../context.ts';
import type { Skill } from '../../resources/skills/skills.schema.ts';

/** -a makes it the agent's own skill; --global (or no -a) a global one. */
function place(options: { agent?: string; global?: boolean }): { scope: string; agentId?: string } {
  if (options.global || !options.agent)
    return { scope: 'global', ...(options.agent ? { agentId: options.agent } : {}) };
  return { scope: 'local', agentId: options.agent };
}

async function readText(path: string): Promise<string> {
  return readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new CliError(`cannot read ${path}: ${error.code ?? error.message}`);
  });
}

export function registerSkills(program: Command, cx: Context): void {
  const skills = program.command('skills').description('skills (AgentSkills folders with SKILL.md)');

  withJson(
    skills
      .command('list')
      .alias('ls')
      .description("list skills: global ones, or with -a the agent's own and the global ones")
      .option('-a, --agent <id>', 'agent id')
      .option('--scope <scope>', 'all, global or local', 'all'),
  ).action(async (options: { agent?: string; scope: string; json?: boolean }, command: Command) => {
    const api = await cx.api(command);
    const list = await api.all<Skill>('/skills', { scope: options.scope, agentId: options.agent });
    cx.print(options.json, list.data, () =>
      cx.table(
        ['NAME', 'SCOPE', 'DESCRIPTION'],
        list.data.map((skill) => [skill.name, skill.scope ?? '', skill.description]),
      ),
    );
  });

  withJson(
    skills
      .command('info')
      .description('print a skill (its SKILL.md text)')
      .argument('<name>', 'skill name')
      .option('-a, --agent <id>', "look in this agent's skills first"),
  ).action(async (name: string, options: { agent?: string; json?: boolean }, command: Command) => {
    const api = await cx.api(command);
    const skill = await api.get<Skill>(`/skills/${enc(name)}`, { scope: 'all', agentId: options.agent });
    cx.print(
      options.json,
      skill,
      () => `# ${skill.name} (${skill.scope ?? ''})\n${skill.description}\n\n${skill.content}\n`,
    );
  });

  skills
    .command('create')
    .description('create a skill from text')
    .argument('<name>', 'skill name (letters, digits, - and _)')
    .option('-d, --description <text>', 'one line saying when to use it', '')
    .option('--content <markdown>', 'the instructions (else -f, else stdin)')
    .option('-f, --file <path>', 'read the instructions from a file')
    .option('-a, --agent <id>', "make it this agent's own skill")
    .option('--global', 'make it a global skill (the default without -a)')
    .addHelpText(
      'after',
      '\nExample:\n  agent-service skills create pdf -d "Work with PDFs" --content "Use pdftotext."',
    )
    .action(
      async (
        name: string,
        options: { description: string; content?: string; file?: string; agent?: string; global?: boolean },
        command: Command,
      ) => {
        const content =
          options.content ?? (options.file ? await readText(options.file) : await readAllStdin(cx.io));
        if (!content.trim()) throw usageError('give the skill text with -c, -f or on stdin');
        const api = await cx.api(command);
        await api.json('POST', '/skills', {
          body: { name, description: options.description, content, ...place(options) },
        });
        cx.ok(`skill ${name} created (${place(options).scope})`);
      },
    );

  skills
    .command('upload')
    .description('install the skills of a zip (skill folders, or one SKILL.md)')
    .argument('<zip>', 'path of the zip archive')
    .option('-a, --agent <id>', "install as this agent's own skills")
    .option('--global', 'install as global skills (the default without -a)')
    .action(async (zip: string, options: { agent?: string; global?: boolean }, command: Command) => {
      const bytes = await readFile(zip).catch((error: NodeJS.ErrnoException) => {
        throw new CliError(`cannot read ${zip}: ${error.code ?? error.message}`);
      });
      const where = place(options);
      const form = new FormData();
      form.set('file', new Blob([bytes], { type: 'application/zip' }), basename(zip));
      const api = await cx.api(command);
      const path =
        where.scope === 'local' ? `/agents/${enc(where.agentId ?? '')}/skills/upload` : '/skills/upload';
      if (where.scope === 'global') form.set('scope', 'global');
      const installed = await api.json<Skill[]>('POST', path, { form });
      cx.ok(`installed ${installed.map((skill) => skill.name).join(', ') || 'nothing'}`);
    });

  skills
    .command('delete')
    .alias('rm')
    .description('delete a skill')
    .argument('<name>', 'skill name')
    .option('-a, --agent <id>', "delete this agent's own skill")
    .option('--global', 'delete the global skill (the default without -a)')
    .action(async (name: string, options: { agent?: string; global?: boolean }, command: Command) => {
      const api = await cx.api(command);
      await api.send('DELETE', `/skills/${enc(name)}`, { query: place(options) });
      cx.ok(`skill ${name} deleted`);
    });
}
