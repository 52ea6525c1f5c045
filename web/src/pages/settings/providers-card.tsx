// Model providers: list, add, edit, make default, test the connection, delete. The API key is
// write-only: shown as "set" / "not set", and an empty key field on edit keeps the stored one.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../../api.ts';
import { confirmDelete } from '../../ui/confirm.tsx';
import { Dialog, FormActions, FormError } from '../../ui/dialog.tsx';
import { Icon, IconButton } from '../../ui/icons.tsx';
import { toast } from '../../ui/toast.tsx';

interface Provider {
  id: string;
  name: string;
  base_url: string;
  model: string;
  hasApiKey: boolean;
  default: boolean;
}

interface Summary {
  default: string;
  model: string;
  demo: boolean;
  providers: Provider[];
}

interface TestResult {
  ok: boolean;
  latencyMs: number;
  model: string;
  error?: string;
}

interface Draft {
  id: string;
  name: string;
  base_url: string;
  model: string;
  api_key: string;
}

export function ProvidersCard() {
  const [summary, setSummary] = useState<Summary | null>(null);
  const [editing, setEditing] = useState<{ draft: Draft; existing: Provider | null } | null>(null);
  const [error, setError] = useState('');
  const [tests, setTests] = useState<Record<string, TestResult | 'running'>>({});

  const reload = useCallback(async () => {
    try {
      setSummary(await api<Summary>('/config/models'));
    } catch {
      // toasted
    }
  }, []);
  useEffect(() => {
    void reload();
  }, [reload]);

  const open = (existing: Provider | null) => {
    setError('');
    setEditing({
      existing,
      draft: existing
        ? {
            id: existing.id,
            name: existing.name,
            base_url: existing.base_url,
            model: existing.model,
            api_key: '',
          }
        : { id: '', name: '', base_url: 'https://api.openai.com/v1', model: '', api_key: '' },
    });
  };

  const save = async (event: Event) => {
    event.preventDefault();
    if (!editing) return;
    const { draft, existing } = editing;
    const fields = {
      name: draft.name.trim() || undefined,
      base_url: draft.base_url.trim(),
      model: draft.model.trim(),
      api_key: draft.api_key.trim() || undefined,
    };
    try {
      if (existing)
        await api(`/config/models/providers/${encodeURIComponent(existing.id)}`, {
          method: 'PUT',
          body: fields,
          quiet: true,
        });
      else
        await api('/config/models/providers', {
          method: 'POST',
          body: { id: draft.id.trim(), ...fields },
          quiet: true,
        });
      toast(existing ? `Provider "${existing.id}" saved` : `Provider "${draft.id}" added`, 'success');
      setEditing(null);
      await reload();
    } catch (failure) {
      if (failure instanceof ApiError && failure.status !== 401) setError(failure.message);
    }
  };

  const makeDefault = async (provider: Provider) => {
    try {
      await api('/config/models', { method: 'PUT', body: { default: provider.id } });
      toast(`"${provider.id}" is now the default provider`, 'success');
      await reload();
    } catch {
      // toasted
    }
  };

  const test = async (provider: Provider) => {
    setTests((current) => ({ ...current, [provider.id]: 'running' }));
    try {
      const result = await api<TestResult>(
        `/config/models/providers/${encodeURIComponent(provider.id)}/test`,
        { method: 'POST' },
      );
      setTests((current) => ({ ...current, [provider.id]: result }));
    } catch {
      setTests(({ [provider.id]: _dropped, ...rest }) => rest);
    }
  };

  // The server refuses the default provider, or one another fails over to: api() toasts its reason.
  const remove = async (provider: Provider) => {
    await confirmDelete(
      {
        title: 'Delete provider',
        message: `Delete the model provider "${provider.id}"? Agents that name it stop working.`,
        confirmLabel: 'Delete provider',
      },
      async () => {
        await api(`/config/models/providers/${encodeURIComponent(provider.id)}`, { method: 'DELETE' });
        toast(`Provider "${provider.id}" deleted`, 'success');
        await reload();
      },
    );
  };

  const set = (change: Partial<Draft>) =>
    editing && setEditing({ ...editing, draft: { ...editing.draft, ...change } });
  return (
    <section class="card" aria-label="Model providers">
      <div class="card-head">
        <h2 class="section-title">Model providers</h2>
        <span class="spacer" />
        <button type="button" class="btn btn-primary" onClick={() => open(null)}>
          <Icon name="plus" /> Add provider
        </button>
      </div>
      {summary?.demo && (
        <p class="alert alert-warn" role="status">
          No provider yet: agents answer with the offline demo model. Add any OpenAI-compatible provider
          (OpenAI, DeepSeek, Qwen, a local Ollama at http://127.0.0.1:11434/v1…); the first one becomes the
          default.
        </p>
      )}
      {summary && summary.providers.length > 0 && (
        <table class="table">
          <thead>
            <tr>
              <th>Provider</th>
              <th>Address and model</th>
              <th>API key</th>
              <th>Connection</th>
              <th>
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {summary.providers.map((provider) => {
              const result = tests[provider.id];
              return (
                <tr key={provider.id} data-provider={provider.id}>
                  <td data-label="Provider">
                    <strong>{provider.name}</strong>{' '}
                    {provider.name !== provider.id && <span class="muted">({provider.id})</span>}{' '}
                    {provider.default && <span class="badge badge-ok">default</span>}
                  </td>
                  <td data-label="Address and model">
                    <div class="mono">{provider.base_url}</div>
                    <div class="muted">{provider.model || 'no default model'}</div>
                  </td>
                  <td data-label="API key">
                    <span class={provider.hasApiKey ? 'badge badge-ok' : 'badge'}>
                      {provider.hasApiKey ? 'set' : 'not set'}
                    </span>
                  </td>
                  <td data-label="Connection" aria-live="polite">
                    {result === 'running' ? (
                      <span class="muted">testing…</span>
                    ) : result ? (
                      result.ok ? (
                        <span class="badge badge-ok">ok · {result.latencyMs} ms</span>
                      ) : (
                        <span class="node-log-error">{result.error}</span>
                      )
                    ) : (
                      <span class="muted">not tested</span>
                    )}
                  </td>
                  <td>
                    <div class="row-actions">
                      <button
                        type="button"
                        class="btn"
                        aria-label={`Test ${provider.id}`}
                        disabled={result === 'running'}
                        onClick={() => void test(provider)}
                      >
                        Test
                      </button>
                      {!provider.default && (
                        <button
                          type="button"
                          class="btn"
                          aria-label={`Make ${provider.id} the default`}
                          onClick={() => void makeDefault(provider)}
                        >
                          Make default
                        </button>
                      )}
                      <IconButton
                        icon="edit"
                        label={`Edit ${provider.id}`}
                        title="Edit"
                        onClick={() => open(provider)}
                      />
                      <IconButton
                        icon="trash"
                        label={`Delete ${provider.id}`}
                        title="Delete"
                        onClick={() => void remove(provider)}
                      />
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <Dialog
        title={editing?.existing ? `Edit provider ${editing.existing.id}` : 'Add a model provider'}
        open={editing !== null}
        onClose={() => setEditing(null)}
        wide
        actions={
          <FormActions
            form="provider-form"
            submitLabel={editing?.existing ? 'Save' : 'Add provider'}
            onCancel={() => setEditing(null)}
          />
        }
      >
        {editing && (
          <form id="provider-form" class="stack" onSubmit={(event) => void save(event)}>
            <FormError error={error} />
            <div class="form-grid">
              <label class="field">
                <span class="field-label">ID</span>
                <input
                  class="input"
                  required
                  disabled={editing.existing !== null}
                  value={editing.draft.id}
                  placeholder="openai"
                  onInput={(event) => set({ id: event.currentTarget.value })}
                />
              </label>
              <label class="field">
                <span class="field-label">Display name</span>
                <input
                  class="input"
                  value={editing.draft.name}
                  placeholder="OpenAI"
                  onInput={(event) => set({ name: event.currentTarget.value })}
                />
              </label>
              <label class="field field-wide">
                <span class="field-label">Base URL</span>
                <input
                  class="input mono"
                  type="url"
                  required
                  value={editing.draft.base_url}
                  onInput={(event) => set({ base_url: event.currentTarget.value })}
                />
                <span class="field-help">The OpenAI-compatible endpoint, usually ending in /v1.</span>
              </label>
              <label class="field">
                <span class="field-label">Model</span>
                <input
                  class="input"
                  value={editing.draft.model}
                  placeholder="gpt-4o-mini"
                  onInput={(event) => set({ model: event.currentTarget.value })}
                />
              </label>
              <label class="field">
                <span class="field-label">
                  API key{' '}
                  {editing.existing && (
                    <span
                      class={
                        editing.existing.hasApiKey ? 'badge badge-ok secret-state' : 'badge secret-state'
                      }
                    >
                      {editing.existing.hasApiKey ? 'set' : 'not set'}
                    </span>
                  )}
                </span>
                <input
                  class="input"
                  type="password"
                  autoComplete="off"
                  value={editing.draft.api_key}
                  placeholder={editing.existing ? 'unchanged' : 'sk-…'}
                  onInput={(event) => set({ api_key: event.currentTarget.value })}
                />
                <span class="field-help">Never shown again once saved.</span>
              </label>
            </div>
          </form>
        )}
      </Dialog>
    </section>
  );
}
