// The cron page's parts: a task's last-run badge, the live preview of a schedule's next runs and the
// run history dialog, with the shapes of the server's answers they show.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../../api.ts';
import { t } from '../../i18n/index.ts';
import { renderMarkdown } from '../../markdown.ts';
import { relativeTime } from '../../types.ts';
import { Dialog, FormError } from '../../ui/dialog.tsx';
import type { CronRun, CronTaskView as CronTask } from '@server/scheduler/cron-types.ts';
import type { PreviewAnswer as Preview } from '@server/resources/cron/cron.schema.ts';

export type { CronTask };

export const when = (iso: string) => new Date(iso).toLocaleString();

export function RunBadge({ run }: { run: CronRun | null }) {
  if (!run) return <span class="muted">{t('cron.neverRun')}</span>;
  return (
    <span title={run.error ?? run.reply ?? ''}>
      <span class={run.status === 'success' ? 'badge badge-ok' : 'badge badge-error'}>
        {run.status === 'success' ? t('cron.ok') : t('cron.failed')}
      </span>{' '}
      <span class="muted">{relativeTime(run.startedAt)}</span>
    </span>
  );
}

/** The next runs of a schedule as the user types it (debounced), or the server's reason it is wrong. */
export function SchedulePreview({ schedule }: { schedule: string }) {
  const [preview, setPreview] = useState<Preview | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    if (schedule.trim() === '') {
      setPreview(null);
      setError('');
      return undefined;
    }
    const controller = new AbortController();
    const timer = window.setTimeout(() => {
      api<Preview>('/cron/preview', {
        query: { schedule, count: 5 },
        quiet: true,
        signal: controller.signal,
      }).then(
        (answer) => {
          setPreview(answer);
          setError('');
        },
        (failure: unknown) => {
          if (controller.signal.aborted) return;
          setPreview(null);
          setError(failure instanceof ApiError ? failure.message : t('cron.noPreview'));
        },
      );
    }, 250);
    return () => {
      window.clearTimeout(timer);
      controller.abort();
    };
  }, [schedule]);
  if (error) return <FormError error={error} />;
  if (!preview) return null;
  return (
    <div aria-label={t('cron.nextRunsAria')} aria-live="polite">
      <span class="field-help">{t('cron.nextRuns', { zone: preview.timeZone })}</span>
      <ol class="preview-list">
        {preview.nextRuns.map((run) => (
          <li key={run}>{when(run)}</li>
        ))}
      </ol>
    </div>
  );
}

export function HistoryDialog({ task, onClose }: { task: CronTask | null; onClose: () => void }) {
  const [runs, setRuns] = useState<CronRun[] | null>(null);
  useEffect(() => {
    setRuns(null);
    if (!task) return;
    api<{ data: CronRun[] }>(`/cron/${encodeURIComponent(task.id)}/runs`).then(
      (answer) => setRuns(answer.data),
      () => setRuns([]),
    );
  }, [task?.id]);
  return (
    <Dialog
      title={t('cron.runsOf', { name: task?.name ?? '' })}
      open={task !== null}
      onClose={onClose}
      wide
      actions={
        <button type="button" class="btn" onClick={onClose}>
          {t('cron.close')}
        </button>
      }
    >
      {runs === null ? (
        <p class="muted">{t('cron.loading')}</p>
      ) : runs.length === 0 ? (
        <p class="muted">{t('cron.notRun')}</p>
      ) : (
        <ol class="list" aria-label={t('cron.history')}>
          {runs.map((run) => (
            <li key={run.startedAt} class="node-log">
              <div class="node-log-head">
                <span class={run.status === 'success' ? 'badge badge-ok' : 'badge badge-error'}>
                  {run.status}
                </span>
                <span>{when(run.startedAt)}</span>
                <span class="spacer" />
                <span class="muted">{(run.durationMs / 1000).toFixed(1)} s</span>
              </div>
              {run.error && <p class="node-log-error">{run.error}</p>}
              {run.reply && (
                <div
                  class="markdown run-reply"
                  dangerouslySetInnerHTML={{ __html: renderMarkdown(run.reply) }}
                />
              )}
            </li>
          ))}
        </ol>
      )}
    </Dialog>
  );
}
