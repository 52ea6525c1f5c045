// Cron tasks: the list with next run and last run, create with a preview of the next runs (computed
// by the server's own cron parser), enable/disable, run now, run history, delete with confirmation.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { t, type MessageKey } from '../../i18n/index.ts';
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

/** Schedules to start from; each label is a dictionary key. */
const PRESETS: Array<{ label: MessageKey; schedule: string }> = [
  { label: 'cron.preset.weekday', schedule: '0 0 9 * * 1-5' },
  { label: 'cron.preset.day', schedule: '0 30 8 * * *' },
  { label: 'cron.preset.hour', schedule: '0 0 * * * *' },
  { label: 'cron.preset.15min', schedule: '0 */15 * * * *' },
  { label: 'cron.preset.monday', schedule: '0 0 10 * * 1' },
];

export function CronPage(_props: PageProps) {
  const [tasks, setTasks] = useState<CronTask[] | null>(null);
  const agents = useAgentIds();
  const [agentFilter, setAgentFilter] = useState('');
  const editor = useEditedDraft<{ name: string; schedule: string; target: string; message: string }>(
    (value) => (value.name ? t('cron.unsavedNamed', { name: value.name }) : t('cron.unsaved')),
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
      toast(t('cron.created', { name: task.name }), 'success');
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
          ? t('cron.ran', { name: task.name })
          : t('cron.runFailed', { name: task.name, error: after.lastRun?.error ?? '' }),
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
        title: t('cron.delete.title'),
        message: t('cron.delete.message', { name: task.name }),
        confirmLabel: t('cron.delete.title'),
      },
      async () => {
        await api(`/cron/${encodeURIComponent(task.id)}`, { method: 'DELETE' });
        toast(t('cron.deleted', { name: task.name }), 'success');
        await reload();
      },
    );
  };

  return (
    <div class="page stack">
      <div class="toolbar">
        <h1 class="page-title">{t('cron.title')}</h1>
        <span class="spacer" />
        <AgentFilter
          agents={agents}
          value={agentFilter}
          onChange={setAgentFilter}
          allLabel={t('cron.allAgents')}
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
          <Icon name="plus" /> {t('cron.newTask')}
        </button>
      </div>
      <p class="muted">{t('cron.intro')}</p>
      {tasks === null ? (
        <p class="muted">{t('cron.loading')}</p>
      ) : tasks.length === 0 ? (
        <div class="card empty-state">
          <p class="muted">{t('cron.empty')}</p>
        </div>
      ) : (
        <table class="table card" aria-label={t('cron.title')}>
          <thead>
            <tr>
              <th>{t('cron.col.task')}</th>
              <th>{t('cron.col.schedule')}</th>
              <th>{t('cron.col.next')}</th>
              <th>{t('cron.col.last')}</th>
              <th>{t('cron.col.enabled')}</th>
              <th>
                <span class="visually-hidden">{t('cron.col.actions')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {tasks.map((task) => (
              <tr key={task.id} data-task={task.id}>
                <td data-label={t('cron.col.task')}>
                  <strong>{task.name}</strong>
                  <div class="muted list-item-sub">
                    → {task.target}: {task.message}
                  </div>
                </td>
                <td data-label={t('cron.col.schedule')} class="mono">
                  {task.schedule}
                </td>
                <td data-label={t('cron.col.next')}>
                  {task.nextRunAt ? when(task.nextRunAt) : <span class="muted">—</span>}
                </td>
                <td data-label={t('cron.col.last')}>
                  <RunBadge run={task.lastRun} />
                </td>
                <td data-label={t('cron.col.enabled')}>
                  <label class="inline-check">
                    <input
                      type="checkbox"
                      checked={!task.disabled}
                      onChange={() => void toggle(task)}
                      aria-label={t('cron.enabledAria', { name: task.name })}
                    />
                    {task.disabled ? t('cron.off') : t('cron.on')}
                  </label>
                </td>
                <td>
                  <div class="row-actions">
                    <button
                      type="button"
                      class="btn"
                      disabled={running === task.id}
                      onClick={() => void runNow(task)}
                      aria-label={t('cron.runAria', { name: task.name })}
                    >
                      {running === task.id ? t('cron.running') : t('cron.runNow')}
                    </button>
                    <button
                      type="button"
                      class="btn btn-ghost"
                      onClick={() => setHistory(task)}
                      aria-label={t('cron.historyAria', { name: task.name })}
                    >
                      {t('cron.historyBtn')}
                    </button>
                    <IconButton
                      icon="trash"
                      label={t('cron.deleteAria', { name: task.name })}
                      title={t('cron.delete')}
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
        title={t('cron.new')}
        open={draft !== null}
        onClose={() => void editor.close()}
        wide
        actions={
          <FormActions form="cron-form" submitLabel={t('cron.create')} onCancel={() => void editor.close()} />
        }
      >
        {draft && (
          <form id="cron-form" class="stack" onSubmit={(event) => void create(event)}>
            <FormError error={errors.general} />
            <div class="form-grid">
              <label class="field">
                <span class="field-label">{t('cron.name')}</span>
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
                <span class="field-label">{t('cron.agent')}</span>
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
                <span class="field-label">{t('cron.schedule')}</span>
                <input
                  class="input mono"
                  required
                  value={draft.schedule}
                  onInput={(event) => editor.change({ ...draft, schedule: event.currentTarget.value })}
                />
                <span class="field-help">{t('cron.scheduleHelp')}</span>
                <FieldError error={errors.of('schedule')} />
              </label>
              <label class="field">
                <span class="field-label">{t('cron.preset')}</span>
                <select
                  class="input"
                  value=""
                  onChange={(event) =>
                    event.currentTarget.value &&
                    editor.change({ ...draft, schedule: event.currentTarget.value })
                  }
                >
                  <option value="">{t('cron.choosePreset')}</option>
                  {PRESETS.map((preset) => (
                    <option key={preset.schedule} value={preset.schedule}>
                      {t(preset.label)}
                    </option>
                  ))}
                </select>
              </label>
              <div class="field-wide">
                <SchedulePreview schedule={draft.schedule} />
              </div>
              <label class="field field-wide">
                <span class="field-label">{t('cron.message')}</span>
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
