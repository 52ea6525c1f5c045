// Usage: what the model calls used and cost over a range of days (the server's time zone): totals,
// a bar chart per day, the top agents, accounts and channels, the budgets with what they spent,
// and a CSV export of it all.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { t } from '../../i18n/index.ts';
import type { PageProps } from '../../routes.ts';
import { toast } from '../../ui/toast.tsx';
import type { BudgetView as Budget } from '@server/resources/budgets/budgets.schema.ts';
import type { UsageAnswer, UsageGroup } from '@server/resources/usage/usage.schema.ts';
import { usageCsv } from './usage-csv.ts';
import '../../styles/manage.css';
import '../../styles/usage.css';

interface Report {
  totals: UsageAnswer;
  days: UsageGroup[];
  agents: UsageGroup[];
  accounts: UsageGroup[];
  channels: UsageGroup[];
}

const pad = (value: number) => String(value).padStart(2, '0');
const dayOf = (date: Date) => `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
const money = (cost: number) => `$${cost.toFixed(4)}`;
const count = (value: number) => value.toLocaleString();
const TOP = 5;

function scopeText(scope: Budget['scope']): string {
  const entries = Object.entries(scope).filter(([, value]) => value !== undefined);
  return entries.length === 0
    ? t('usage.wholeServer')
    : entries.map(([key, value]) => `${key}: ${value}`).join(', ');
}

function DayChart({ days, from, to }: { days: UsageGroup[]; from: string; to: string }) {
  // Every day of the range, the empty ones too, so the bars line up with the calendar.
  const byDay = new Map(days.map((day) => [day.key, day]));
  const all: Array<{ key: string; tokens: number; cost: number }> = [];
  const end = new Date(`${to}T00:00:00`);
  for (
    let date = new Date(`${from}T00:00:00`);
    date <= end && all.length < 400;
    date.setDate(date.getDate() + 1)
  ) {
    const key = dayOf(date);
    const day = byDay.get(key);
    all.push({ key, tokens: day?.totalTokens ?? 0, cost: day?.cost ?? 0 });
  }
  const most = Math.max(1, ...all.map((day) => day.tokens));
  const width = Math.max(all.length * 12, 120);
  return (
    <figure class="card usage-chart">
      <figcaption class="muted">{t('usage.perDay')}</figcaption>
      <svg viewBox={`0 0 ${width} 100`} preserveAspectRatio="none" role="img" aria-label={t('usage.perDay')}>
        {all.map((day, index) => {
          const height = (day.tokens / most) * 96;
          return (
            <rect
              key={day.key}
              class="usage-bar"
              data-day={day.key}
              x={index * 12 + 1}
              y={100 - height}
              width={10}
              height={height}
            >
              <title>
                {t('usage.dayTitle', { day: day.key, tokens: count(day.tokens), cost: money(day.cost) })}
              </title>
            </rect>
          );
        })}
      </svg>
    </figure>
  );
}

function TopTable({ title, rows }: { title: string; rows: UsageGroup[] }) {
  return (
    <section class="card usage-top">
      <h2 class="usage-heading">{title}</h2>
      {rows.length === 0 ? (
        <p class="muted">{t('usage.noCalls')}</p>
      ) : (
        <table class="table" aria-label={title}>
          <thead>
            <tr>
              <th>{t('usage.name')}</th>
              <th>{t('usage.calls')}</th>
              <th>{t('usage.tokens')}</th>
              <th>{t('usage.cost')}</th>
            </tr>
          </thead>
          <tbody>
            {rows.slice(0, TOP).map((row) => (
              <tr key={`${row.channel ?? ''}/${row.key}`}>
                <td data-label={t('usage.name')}>
                  {row.channel ? `${row.channel} / ${row.key || '—'}` : row.key || '—'}
                </td>
                <td data-label={t('usage.calls')}>{count(row.calls)}</td>
                <td data-label={t('usage.tokens')}>{count(row.totalTokens)}</td>
                <td data-label={t('usage.cost')}>{money(row.cost)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function UsagePage(_props: PageProps) {
  const today = dayOf(new Date());
  const [from, setFrom] = useState(`${today.slice(0, 8)}01`);
  const [to, setTo] = useState(today);
  const [report, setReport] = useState<Report | null>(null);
  const [budgets, setBudgets] = useState<Budget[]>([]);

  const load = useCallback(async () => {
    if (!from || !to || from > to) return;
    const get = (groupBy?: string) =>
      api<UsageAnswer>('/usage', { query: { from, to, ...(groupBy ? { groupBy } : {}) } });
    try {
      const [totals, days, agents, accounts, channels] = await Promise.all([
        get(),
        get('day'),
        get('agent'),
        get('account'),
        get('channel'),
      ]);
      setReport({
        totals,
        days: days.groups,
        agents: agents.groups,
        accounts: accounts.groups,
        channels: channels.groups,
      });
      setBudgets(await api<Budget[]>('/budgets'));
    } catch {
      // toasted
    }
  }, [from, to]);

  useEffect(() => {
    void load();
  }, [load]);

  const exportCsv = () => {
    if (!report) return;
    const text = usageCsv({ from, to }, [
      ['day', report.days],
      ['agent', report.agents],
      ['account', report.accounts],
      ['channel', report.channels],
    ]);
    const url = URL.createObjectURL(new Blob([text], { type: 'text/csv' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = `usage-${from}-${to}.csv`;
    link.click();
    window.setTimeout(() => URL.revokeObjectURL(url), 1000);
    toast(t('usage.exported'), 'success');
  };

  const totals = report?.totals.totals;
  return (
    <div class="page stack">
      <div class="toolbar">
        <h1 class="page-title">{t('usage.title')}</h1>
        <span class="spacer" />
        <label class="field usage-range">
          <span class="field-label">{t('usage.from')}</span>
          <input
            class="input"
            type="date"
            value={from}
            max={to}
            onInput={(event) => setFrom(event.currentTarget.value)}
          />
        </label>
        <label class="field usage-range">
          <span class="field-label">{t('usage.to')}</span>
          <input
            class="input"
            type="date"
            value={to}
            min={from}
            onInput={(event) => setTo(event.currentTarget.value)}
          />
        </label>
        <button type="button" class="btn" onClick={exportCsv} disabled={!report}>
          {t('usage.export')}
        </button>
      </div>
      <p class="muted">{t('usage.intro', { zone: report ? ` (${report.totals.timeZone})` : '' })}</p>
      {!report || !totals ? (
        <p class="muted">{t('usage.loading')}</p>
      ) : (
        <>
          <dl class="usage-totals" aria-label={t('usage.totals')}>
            <div class="card">
              <dt class="muted">{t('usage.cost')}</dt>
              <dd data-total="cost">{money(totals.cost)}</dd>
            </div>
            <div class="card">
              <dt class="muted">{t('usage.tokens')}</dt>
              <dd data-total="tokens">{count(totals.totalTokens)}</dd>
              <dd class="muted">
                {t('usage.inOut', {
                  input: count(totals.inputTokens),
                  cached: count(totals.cachedInputTokens),
                  output: count(totals.outputTokens),
                })}
              </dd>
            </div>
            <div class="card">
              <dt class="muted">{t('usage.calls')}</dt>
              <dd data-total="calls">{count(totals.calls)}</dd>
              <dd class="muted">
                {t('usage.failedEstimated', {
                  failed: count(totals.failedCalls),
                  estimated: count(totals.estimatedCalls),
                })}
              </dd>
            </div>
          </dl>
          <DayChart days={report.days} from={from} to={to} />
          <div class="usage-tops">
            <TopTable title={t('usage.topAgents')} rows={report.agents} />
            <TopTable title={t('usage.topAccounts')} rows={report.accounts} />
            <TopTable title={t('usage.topChannels')} rows={report.channels} />
          </div>
          <section class="card">
            <h2 class="usage-heading">{t('usage.budgets')}</h2>
            {budgets.length === 0 ? (
              <p class="muted">{t('usage.noBudgets')}</p>
            ) : (
              <table class="table" aria-label={t('usage.budgets')}>
                <thead>
                  <tr>
                    <th>{t('usage.budget')}</th>
                    <th>{t('usage.scope')}</th>
                    <th>{t('usage.limit')}</th>
                    <th>{t('usage.spent')}</th>
                    <th>{t('usage.resets')}</th>
                  </tr>
                </thead>
                <tbody>
                  {budgets.map((budget) => (
                    <tr key={budget.id} data-budget={budget.id}>
                      <td data-label={t('usage.budget')}>
                        <strong>{budget.id}</strong>{' '}
                        {budget.reached && (
                          <span class={budget.action === 'block' ? 'badge badge-error' : 'badge badge-warn'}>
                            {budget.action === 'block' ? t('usage.reached') : t('usage.over')}
                          </span>
                        )}
                      </td>
                      <td data-label={t('usage.scope')}>{scopeText(budget.scope)}</td>
                      <td data-label={t('usage.limit')}>
                        {[
                          budget.tokens !== undefined
                            ? t('usage.nTokens', { count: count(budget.tokens) })
                            : '',
                          budget.cost !== undefined ? money(budget.cost) : '',
                        ]
                          .filter(Boolean)
                          .join(' · ')}{' '}
                        {t('usage.period', { period: budget.period })}
                      </td>
                      <td data-label={t('usage.spent')}>
                        {t('usage.nTokens', { count: count(budget.spent.tokens) })} ·{' '}
                        {money(budget.spent.cost)}
                      </td>
                      <td data-label={t('usage.resets')}>{new Date(budget.resetsAt).toLocaleString()}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
        </>
      )}
    </div>
  );
}
