// Cron tasks: the list with next run and last run, create with a preview of the next runs (computed
// by the server's own cron parser), enable/disable, run now, run history, delete with confirmation.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api } from '../../api.ts';
import type { PageProps } from '../../routes.ts';
import { HistoryDialog, RunBadge, SchedulePreview, when, type CronTask } from './cron-parts.tsx';
import { confirmDelete } from '../../ui/confirm.tsx';
import { Dialog, FieldError, FormActions, FormError } from '../../ui/dialog.tsx';
import { useFormErrors } from '../../ui/form-errors.ts';
import { AgentFilter, useAgentIds } from '../../ui/agent-filter.tsx';
import { Icon, IconButton } from '../../ui/icons.tsx';
import { toast } from '../../ui/toast.tsx';
import { useEditedDraft } from '../../ui/unsaved.ts';
import '../../styles/manage.css';

const PRESETS = [
  { label: 'Every weekday at 09:00', schedule: '0 0 9 * * 1-5' },
  { label: 'Every day at 08:30', schedule: '0 30 8 * * *' },
  { label: 'Every hour', schedule: '0 0 * * * *' },
  { label: 'Every 15 minutes', schedule: '0 */15 * * * *' },
  { label: 'Mondays at 10:00', schedule: '0 0 10 * * 1' },
];

export function CronPage(_props: PageProps) {
  const [tasks, setTasks] = useState<CronTask[] | null>(null);
  const agents = useAgentIds();
  const [agentFilter, setAgentFilter] = useState('');
  const editor = useEditedDraft<{ name: string; schedule: string; target: string; message: string }>(
    (value) => (value.name ? `the new task "${value.name}"` : 'the new task'),
  );
  const draft = editor.value;
  const errors = useFormErrors();
  const editing = draft !== null;
  useEffect(() => {
    if (!editing) errors.clear();
  }, [editing]);
  const [history, setHistory] = useState<CronTask | null>(null);
  const [running, setRunning] = useState<string | null>(null);

  const reload = useCallback(async () => {
    try {
      setTasks(await api<CronTask[]>('/cron', { query: { agentId: agentFilter || undefined } }));
    } catch {
      setTasks([]);
    }
  }, [agentFilter]);
  useEffect(() => {
    void reload();
  }, [reload]);

  const create = async (event: Event) => {
    event.preventDefault();
    if (!draft) return;
    errors.clear();
    try {
      const task = await api<CronTask>('/cron', { method: 'POST', body: draft, quiet: true });
      toast(`Task "${task.name}" created`, 'success');
      editor.discard();
      await reload();
    } catch (error) {
      errors.take(error, ['name', 'target', 'schedule', 'message']);
    }
  };

  const toggle = async (task: CronTask) => {
    try {
      await api(`/cron/${encodeURIComponent(task.id)}/toggle`, {
        method: 'PUT',
        body: { disabled: !task.disabled },
      });
      await reload();
    } catch {
      // toasted
    }
  };

  const runNow = async (task: CronTask) => {
    setRunning(task.id);
    try {
      const after = await api<CronTask>(`/cron/${encodeURIComponent(task.id)}/run`, { method: 'POST' });
      toast(
        after.lastRun?.status === 'success'
          ? `"${task.name}" ran`
          : `"${task.name}" failed: ${after.lastRun?.error ?? ''}`,
        after.lastRun?.status === 'success' ? 'success' : 'error',
      );
      await reload();
    } catch {
      // toasted
    } finally {
      setRunning(null);
    }
  };

  const remove = async (task: CronTask) => {
    await confirmDelete(
      {
        title: 'Delete task',
        message: `Delete the cron task "${task.name}" and its run history?`,
        confirmLabel: 'Delete task',
      },
      async () => {
        await api(`/cron/${encodeURIComponent(task.id)}`, { method: 'DELETE' });
        toast(`Task "${task.name}" deleted`, 'success');
        await reload();
      },
    );
  };

  return (
    <div class="page stack">
      <div class="toolbar">
        <h1 class="page-title">Cron tasks</h1>
        <span class="spacer" />
        <AgentFilter
          agents={agents}
          value={agentFilter}
          onChange={setAgentFilter}
          allLabel="All agents"
          class="input input-auto"
        />
        <button
          type="button"
          class="btn btn-primary"
          onClick={() =>
            editor.open({
              name: '',
              schedule: '0 0 9 * * 1-5',
              target: agentFilter || (agents.includes('main') ? 'main' : (agents[0] ?? '')),
              message: '',
            })
          }
        >
          <Icon name="plus" /> New task
        </button>
      </div>
      <p class="muted">
        A task sends its message to an agent on a schedule, in the agent's own cron conversation.
      </p>
      {tasks === null ? (
        <p class="muted">Loading…</p>
      ) : tasks.length === 0 ? (
        <div class="card empty-state">
          <p class="muted">No cron tasks yet.</p>
        </div>
      ) : (
        <table class="table card" aria-label="Cron tasks">
          <thead>
            <tr>
              <th>Task</th>
              <th>Schedule</th>
              <th>Next run</th>
              <th>Last run</th>
              <th>Enabled</th>
              <th>
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {tasks.map((task) => (
              <tr key={task.id} data-task={task.id}>
                <td data-label="Task">
                  <strong>{task.name}</strong>
                  <div class="muted list-item-sub">
                    → {task.target}: {task.message}
                  </div>
                </td>
                <td data-label="Schedule" class="mono">
                  {task.schedule}
                </td>
                <td data-label="Next run">
                  {task.nextRunAt ? when(task.nextRunAt) : <span class="muted">—</span>}
                </td>
                <td data-label="Last run">
                  <RunBadge run={task.lastRun} />
                </td>
                <td data-label="Enabled">
                  <label class="inline-check">
                    <input
                      type="checkbox"
                      checked={!task.disabled}
                      onChange={() => void toggle(task)}
                      aria-label={`Enabled: ${task.name}`}
                    />
                    {task.disabled ? 'off' : 'on'}
                  </label>
                </td>
                <td>
                  <div class="row-actions">
                    <button
                      type="button"
                      class="btn"
                      disabled={running === task.id}
                      onClick={() => void runNow(task)}
                      aria-label={`Run ${task.name} now`}
                    >
                      {running === task.id ? 'Running…' : 'Run now'}
                    </button>
                    <button
                      type="button"
                      class="btn btn-ghost"
                      onClick={() => setHistory(task)}
                      aria-label={`History of ${task.name}`}
                    >
                      History
                    </button>
                    <IconButton
                      icon="trash"
                      label={`Delete ${task.name}`}
                      title="Delete"
                      onClick={() => void remove(task)}
                    />
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Dialog
        title="New cron task"
        open={draft !== null}
        onClose={() => void editor.close()}
        wide
        actions={<FormActions form="cron-form" submitLabel="Create" onCancel={() => void editor.close()} />}
      >
        {draft && (
          <form id="cron-form" class="stack" onSubmit={(event) => void create(event)}>
            <FormError error={errors.general} />
            <div class="form-grid">
              <label class="field">
                <span class="field-label">Name</span>
                <input
                  class="input"
                  required
                  maxLength={200}
                  value={draft.name}
                  onInput={(event) => editor.change({ ...draft, name: event.currentTarget.value })}
                />
                <FieldError error={errors.of('name')} />
              </label>
              <label class="field">
                <span class="field-label">Agent</span>
                <select
                  class="input"
                  required
                  value={draft.target}
                  onChange={(event) => editor.change({ ...draft, target: event.currentTarget.value })}
                >
                  {agents.map((id) => (
                    <option key={id} value={id}>
                      {id}
                    </option>
                  ))}
                </select>
                <FieldError error={errors.of('target')} />
              </label>
              <label class="field">
                <span class="field-label">Schedule</span>
                <input
                  class="input mono"
                  required
                  value={draft.schedule}
                  onInput={(event) => editor.change({ ...draft, schedule: event.currentTarget.value })}
                />
                <span class="field-help">
                  Six fields: second minute hour day month weekday (0 or 7 is Sunday), or the standard five
                  without the second (it runs at second 0).
                </span>
                <FieldError error={errors.of('schedule')} />
              </label>
              <label class="field">
                <span class="field-label">Preset</span>
                <select
                  class="input"
                  value=""
                  onChange={(event) =>
                    event.currentTarget.value &&
                    editor.change({ ...draft, schedule: event.currentTarget.value })
                  }
                >
                  <option value="">Choose a preset…</option>
                  {PRESETS.map((preset) => (
                    <option key={preset.schedule} value={preset.schedule}>
                      {preset.label}
                    </option>
                  ))}
                </select>
              </label>
              <div class="field-wide">
                <SchedulePreview schedule={draft.schedule} />
              </div>
              <label class="field field-wide">
                <span class="field-label">Message</span>
                <textarea
                  class="input"
                  rows={4}
                  required
                  value={draft.message}
                  onInput={(event) => editor.change({ ...draft, message: event.currentTarget.value })}
                />
                <FieldError error={errors.of('message')} />
              </label>
            </div>
          </form>
        )}
      </Dialog>
      <HistoryDialog task={history} onClose={() => setHistory(null)} />
    </div>
  );
}
