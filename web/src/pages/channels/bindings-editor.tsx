// Bindings: which agent answers which channel, account or peer. Edited as rows and saved whole with
// PUT /bindings. The most specific match wins, and within one level the first row, so rows can be moved.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../../api.ts';
import { toast } from '../../ui/toast.tsx';
import { FormError } from '../../ui/dialog.tsx';
import { Icon, IconButton } from '../../ui/icons.tsx';
import type { PlatformSpec, PlatformView } from './platform-fields.ts';

interface Binding {
  agentId: string;
  match: { default?: boolean; channel?: string; accountId?: string; peer?: string };
}

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
  if (row.channel) match.channel = row.channel;
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

  if (rows === null) return <p class="muted">Loading…</p>;
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
      toast('Bindings saved', 'success');
    } catch (failure) {
      if (failure instanceof ApiError && failure.status !== 401) setError(failure.message);
    }
  };

  const dirty = JSON.stringify(rows) !== saved;
  return (
    <section class="card" aria-label="Bindings">
      <div class="card-head">
        <h2 class="section-title">Bindings</h2>
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
          <Icon name="plus" /> Add binding
        </button>
        <button type="button" class="btn btn-primary" disabled={!dirty} onClick={() => void save()}>
          Save bindings
        </button>
      </div>
      <p class="muted">
        Which agent answers a message. The most specific match wins: a peer, then an account, then a channel,
        then the default binding; within one level the first in the list. Without any match, <code>main</code>{' '}
        answers.
      </p>
      <FormError error={error} />
      {rows.length === 0 ? (
        <p class="muted">No bindings: every message goes to main.</p>
      ) : (
        <table class="table">
          <thead>
            <tr>
              <th>Agent</th>
              <th>Channel</th>
              <th>Account</th>
              <th>Peer (chat or user)</th>
              <th>Default</th>
              <th>
                <span class="visually-hidden">Order</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row, index) => {
              const accounts = row.channel ? Object.keys(platforms[row.channel]?.accounts ?? {}) : [];
              return (
                <tr key={index} data-binding={index}>
                  <td data-label="Agent">
                    <select
                      class="input"
                      aria-label={`Agent of binding ${index + 1}`}
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
                  <td data-label="Channel">
                    <select
                      class="input"
                      aria-label={`Channel of binding ${index + 1}`}
                      value={row.channel}
                      onChange={(event) =>
                        change(index, { channel: event.currentTarget.value, accountId: '' })
                      }
                    >
                      <option value="">Any</option>
                      {specs.map((spec) => (
                        <option key={spec.id} value={spec.id}>
                          {spec.label}
                        </option>
                      ))}
                    </select>
                  </td>
                  <td data-label="Account">
                    <select
                      class="input"
                      aria-label={`Account of binding ${index + 1}`}
                      value={row.accountId}
                      onChange={(event) => change(index, { accountId: event.currentTarget.value })}
                    >
                      <option value="">Any</option>
                      {[...new Set([...accounts, row.accountId])].filter(Boolean).map((id) => (
                        <option key={id} value={id}>
                          {id}
                        </option>
                      ))}
                    </select>
                  </td>
                  <td data-label="Peer">
                    <input
                      class="input"
                      aria-label={`Peer of binding ${index + 1}`}
                      value={row.peer}
                      placeholder="any"
                      onInput={(event) => change(index, { peer: event.currentTarget.value })}
                    />
                  </td>
                  <td data-label="Default">
                    <input
                      type="checkbox"
                      aria-label={`Binding ${index + 1} is the default`}
                      checked={row.isDefault}
                      onChange={(event) => change(index, { isDefault: event.currentTarget.checked })}
                    />
                  </td>
                  <td>
                    <div class="row-actions">
                      <button
                        type="button"
                        class="icon-btn"
                        aria-label={`Move binding ${index + 1} up`}
                        disabled={index === 0}
                        onClick={() => move(index, -1)}
                      >
                        ↑
                      </button>
                      <button
                        type="button"
                        class="icon-btn"
                        aria-label={`Move binding ${index + 1} down`}
                        disabled={index === rows.length - 1}
                        onClick={() => move(index, 1)}
                      >
                        ↓
                      </button>
                      <IconButton
                        icon="trash"
                        label={`Remove binding ${index + 1}`}
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
