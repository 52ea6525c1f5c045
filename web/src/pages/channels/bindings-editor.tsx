// Bindings: which agent answers which channel, account or peer. Edited as rows and saved whole with
// PUT /bindings. The most specific match wins, and within one level the first row, so rows can be moved.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../../api.ts';
import { t } from '../../i18n/index.ts';
import { toast } from '../../ui/toast.tsx';
import { FormError } from '../../ui/dialog.tsx';
import { Icon, IconButton } from '../../ui/icons.tsx';
import type { PlatformSpec, PlatformView } from './platform-fields.ts';
import type { Binding } from '@server/resources/bindings/bindings.schema.ts';

interface Row {
  agentId: string;
  isDefault: boolean;
  channel: string;
  accountId: string;
  peer: string;
}

function rowOf(binding: Binding): Row {
  return {
    agentId: binding.agentId,
    isDefault: binding.match.default === true,
    channel: binding.match.channel ?? '',
    accountId: binding.match.accountId ?? '',
    peer: binding.match.peer ?? '',
  };
}

function bindingOf(row: Row): Binding {
  const match: Binding['match'] = {};
  if (row.isDefault) match.default = true;
  // The channel is picked from GET /channels/platforms, the server's own list.
  if (row.channel) match.channel = row.channel as NonNullable<Binding['match']['channel']>;
  if (row.accountId.trim()) match.accountId = row.accountId.trim();
  if (row.peer.trim()) match.peer = row.peer.trim();
  return { agentId: row.agentId, match };
}

export function BindingsEditor({
  agents,
  specs,
  platforms,
}: {
  agents: string[];
  /** The platforms, in list order (GET /channels/platforms). */
  specs: PlatformSpec[];
  platforms: Record<string, PlatformView>;
}) {
  const [rows, setRows] = useState<Row[] | null>(null);
  const [saved, setSaved] = useState('');
  const [error, setError] = useState('');

  const load = async () => {
    try {
      const answer = await api<{ bindings: Binding[] }>('/bindings');
      const loaded = answer.bindings.map(rowOf);
      setRows(loaded);
      setSaved(JSON.stringify(loaded));
    } catch {
      setRows([]);
    }
  };
  useEffect(() => {
    void load();
  }, []);

  if (rows === null) return <p class="muted">{t('bind.loading')}</p>;
  const change = (index: number, patch: Partial<Row>) =>
    setRows(rows.map((row, at) => (at === index ? { ...row, ...patch } : row)));
  const move = (index: number, by: number) => {
    const next = [...rows];
    const [row] = next.splice(index, 1);
    if (row) next.splice(index + by, 0, row);
    setRows(next);
  };

  const save = async () => {
    setError('');
    try {
      const answer = await api<{ bindings: Binding[] }>('/bindings', {
        method: 'PUT',
        body: { bindings: rows.map(bindingOf) },
        quiet: true,
      });
      const loaded = answer.bindings.map(rowOf);
      setRows(loaded);
      setSaved(JSON.stringify(loaded));
      toast(t('bind.saved'), 'success');
    } catch (failure) {
      if (failure instanceof ApiError && failure.status !== 401) setError(failure.message);
    }
  };

  const dirty = JSON.stringify(rows) !== saved;
  return (
    <section class="card" aria-label={t('bind.title')}>
      <div class="card-head">
        <h2 class="section-title">{t('bind.title')}</h2>
        <span class="spacer" />
        <button
          type="button"
          class="btn"
          onClick={() =>
            setRows([
              ...rows,
              {
                agentId: agents.includes('main') ? 'main' : (agents[0] ?? ''),
                isDefault: false,
                channel: '',
                accountId: '',
                peer: '',
              },
            ])
          }
        >
          <Icon name="plus" /> {t('bind.add')}
        </button>
        <button type="button" class="btn btn-primary" disabled={!dirty} onClick={() => void save()}>
          {t('bind.save')}
        </button>
      </div>
      <p class="muted">
        {t('bind.text')} <code>main</code> {t('bind.textTail')}
      </p>
      <FormError error={error} />
      {rows.length === 0 ? (
        <p class="muted">{t('bind.empty')}</p>
      ) : (
        <table class="table">
          <thead>
            <tr>
              <th>{t('bind.agent')}</th>
              <th>{t('bind.channel')}</th>
              <th>{t('bind.account')}</th>
              <th>{t('bind.peer')}</th>
              <th>{t('bind.default')}</th>
              <th>
                <span class="visually-hidden">{t('bind.order')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row, index) => {
              const accounts = row.channel ? Object.keys(platforms[row.channel]?.accounts ?? {}) : [];
              return (
                <tr key={index} data-binding={index}>
                  <td data-label={t('bind.agent')}>
                    <select
                      class="input"
                      aria-label={t('bind.agentOf', { n: index + 1 })}
                      value={row.agentId}
                      onChange={(event) => change(index, { agentId: event.currentTarget.value })}
                    >
                      {[...new Set([...agents, row.agentId])].filter(Boolean).map((id) => (
                        <option key={id} value={id}>
                          {id}
                        </option>
                      ))}
                    </select>
                  </td>
                  <td data-label={t('bind.channel')}>
                    <select
                      class="input"
                      aria-label={t('bind.channelOf', { n: index + 1 })}
                      value={row.channel}
                      onChange={(event) =>
                        change(index, { channel: event.currentTarget.value, accountId: '' })
                      }
                    >
                      <option value="">{t('bind.any')}</option>
                      {specs.map((spec) => (
                        <option key={spec.id} value={spec.id}>
                          {spec.label}
                        </option>
                      ))}
                    </select>
                  </td>
                  <td data-label={t('bind.account')}>
                    <select
                      class="input"
                      aria-label={t('bind.accountOf', { n: index + 1 })}
                      value={row.accountId}
                      onChange={(event) => change(index, { accountId: event.currentTarget.value })}
                    >
                      <option value="">{t('bind.any')}</option>
                      {[...new Set([...accounts, row.accountId])].filter(Boolean).map((id) => (
                        <option key={id} value={id}>
                          {id}
                        </option>
                      ))}
                    </select>
                  </td>
                  <td data-label={t('bind.peerShort')}>
                    <input
                      class="input"
                      aria-label={t('bind.peerOf', { n: index + 1 })}
                      value={row.peer}
                      placeholder={t('bind.anyPlaceholder')}
                      onInput={(event) => change(index, { peer: event.currentTarget.value })}
                    />
                  </td>
                  <td data-label={t('bind.default')}>
                    <input
                      type="checkbox"
                      aria-label={t('bind.isDefault', { n: index + 1 })}
                      checked={row.isDefault}
                      onChange={(event) => change(index, { isDefault: event.currentTarget.checked })}
                    />
                  </td>
                  <td>
                    <div class="row-actions">
                      <button
                        type="button"
                        class="icon-btn"
                        aria-label={t('bind.up', { n: index + 1 })}
                        disabled={index === 0}
                        onClick={() => move(index, -1)}
                      >
                        ↑
                      </button>
                      <button
                        type="button"
                        class="icon-btn"
                        aria-label={t('bind.down', { n: index + 1 })}
                        disabled={index === rows.length - 1}
                        onClick={() => move(index, 1)}
                      >
                        ↓
                      </button>
                      <IconButton
                        icon="trash"
                        label={t('bind.remove', { n: index + 1 })}
                        onClick={() => setRows(rows.filter((_, at) => at !== index))}
                      />
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
