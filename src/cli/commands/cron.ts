// `cron list|create|get|delete|enable|disable|run`: scheduled messages to agents.
import type { Command } from 'commander';
import { deleteCommand, enc, withJson, type Context } from '../context.ts';
import type { CronTaskView } from '../../scheduler/cron-types.ts';

type Task = CronTaskView;

function lastRun(task: Task): string {
  const run = task.lastRun;
  if (!run) return 'never';
  return `${run.status ?? ''} ${run.endedAt ?? run.startedAt ?? ''}`.trim();
}

export function registerCron(program: Command, cx: Context): void {
  const cron = program
    .command('cron')
    .description(
      'scheduled messages to agents (six fields: sec min hour day month weekday, or the standard five)',
    );

  withJson(
    cron
      .command('list')
      .alias('ls')
      .description('list tasks')
      .option('-a, --agent <id>', 'only tasks of this agent'),
  ).action(async (options: { agent?: string; json?: boolean }, command: Command) => {
    const api = await cx.api(command);
    const tasks = await api.get<Task[]>('/cron', options.agent ? { agentId: options.agent } : {});
    cx.print(options.json, tasks, () =>
      cx.table(
        ['ID', 'NAME', 'SCHEDULE', 'AGENT', 'STATE', 'NEXT RUN', 'LAST RUN'],
        tasks.map((t) => [
          t.id,
          t.name,
          t.schedule,
          t.target,
          t.disabled ? 'disabled' : 'enabled',
          t.nextRunAt ?? '',
          lastRun(t),
        ]),
      ),
    );
  });

  cron
    .command('create')
    .alias('add')
    .description('create a task')
    .argument('<name>', 'task name')
    .requiredOption(
      '-s, --schedule <cron>',
      'cron expression: six fields with seconds ("0 */5 * * * *") or the standard five ("*/5 * * * *")',
    )
    .requiredOption('-m, --message <text>', 'message sent to the agent when the task fires')
    .option('-a, --agent <id>', 'target agent', 'main')
    .option('--json', 'print the created task as JSON')
    .addHelpText(
      'after',
      '\nExample:\n  agent-service cron create morning -s "0 0 9 * * 1-5" -m "Summarise my inbox" -a main',
    )
    .action(
      async (
        name: string,
        options: { schedule: string; message: string; agent: string; json?: boolean },
        command: Command,
      ) => {
        const api = await cx.api(command);
        const task = await api.json<Task>('POST', '/cron', {
          body: { name, schedule: options.schedule, message: options.message, target: options.agent },
        });
        cx.print(
          options.json,
          task,
          () => `${cx.style.green('✓')} task ${task.id} created; next run ${task.nextRunAt ?? 'none'}\n`,
        );
      },
    );

  withJson(
    cron.command('get').description('show a task and its last run').argument('<id>', 'task id'),
  ).action(async (id: string, options: { json?: boolean }, command: Command) => {
    const api = await cx.api(command);
    const task = await api.get<Task>(`/cron/${enc(id)}`);
    cx.print(options.json, task, () =>
      [
        `id:       ${task.id}`,
        `name:     ${task.name}`,
        `schedule: ${task.schedule}`,
        `agent:    ${task.target}`,
        `message:  ${task.message}`,
        `state:    ${task.disabled ? 'disabled' : 'enabled'}`,
        `next run: ${task.nextRunAt ?? 'none'}`,
        `last run: ${lastRun(task)}${task.lastRun?.error ? ` (${task.lastRun.error})` : ''}`,
        ...(task.lastRun?.reply ? [`reply:    ${task.lastRun.reply}`] : []),
        '',
      ].join('\n'),
    );
  });

  deleteCommand(cron, cx, 'task', (id) => `/cron/${enc(id)}`);

  for (const [name, disabled] of [
    ['enable', false],
    ['disable', true],
  ] as const) {
    cron
      .command(name)
      .description(`${name} a task`)
      .argument('<id>', 'task id')
      .action(async (id: string, _options: unknown, command: Command) => {
        const api = await cx.api(command);
        await api.json('PUT', `/cron/${enc(id)}/toggle`, { body: { disabled } });
        cx.ok(`task ${id} ${name}d`);
      });
  }

  withJson(
    cron.command('run').description('run a task once now and show the outcome').argument('<id>', 'task id'),
  ).action(async (id: string, options: { json?: boolean }, command: Command) => {
    const api = await cx.api(command);
    const task = await cx.spin(`running ${id}`, api.json<Task>('POST', `/cron/${enc(id)}/run`));
    cx.print(
      options.json,
      task,
      () =>
        `${lastRun(task)}${task.lastRun?.error ? `: ${task.lastRun.error}` : ''}\n${task.lastRun?.reply ? `${task.lastRun.reply}\n` : ''}`,
    );
  });
}
