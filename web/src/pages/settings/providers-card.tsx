// Model providers: list, add, edit, make default, test the connection, delete. The API key is
// write-only: shown as "set" / "not set", and an empty key field on edit keeps the stored one.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../../api.ts';
import { confirmDelete } from '../../ui/confirm.tsx';
import { t } from '../../i18n/index.ts';
import { Dialog, FormActions, FormError } from '../../ui/dialog.tsx';
import { Icon, IconButton } from '../../ui/icons.tsx';
import { toast } from '../../ui/toast.tsx';
import type { ConnectionTestAnswer, ModelsSummary, ProviderView } from '@server/resources/models/models.schema.ts';

type Provider = ProviderView;

type Summary = ModelsSummary;

type TestResult = ConnectionTestAnswer;

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
      toast(
        existing ? t('providers.saved', { id: existing.id }) : t('providers.added', { id: draft.id }),
        'success',
      );
      setEditing(null);
      await reload();
    } catch (failure) {
      if (failure instanceof ApiError && failure.status !== 401) setError(failure.message);
    }
  };

  const makeDefault = async (provider: Provider) => {
    try {
      await api('/config/models', { method: 'PUT', body: { default: provider.id } });
      toast(t('providers.nowDefault', { id: provider.id }), 'success');
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
        title: t('providers.delete.title'),
        message: t('providers.delete.message', { id: provider.id }),
        confirmLabel: t('providers.delete.confirm'),
      },
      async () => {
        await api(`/config/models/providers/${encodeURIComponent(provider.id)}`, { method: 'DELETE' });
        toast(t('providers.deleted', { id: provider.id }), 'success');
        await reload();
      },
    );
  };

  const set = (change: Partial<Draft>) =>
    editing && setEditing({ ...editing, draft: { ...editing.draft, ...change } });
  return (
    <section class="card" aria-label={t('providers.title')}>
      <div class="card-head">
        <h2 class="section-title">{t('providers.title')}</h2>
        <span class="spacer" />
        <button type="button" class="btn btn-primary" onClick={() => open(null)}>
          <Icon name="plus" /> {t('providers.add')}
        </button>
      </div>
      {summary?.demo && (
        <p class="alert alert-warn" role="status">
          {t('providers.demo')}
        </p>
      )}
      {summary && summary.providers.length > 0 && (
        <table class="table">
          <thead>
            <tr>
              <th>{t('providers.col.provider')}</th>
              <th>{t('providers.col.address')}</th>
              <th>{t('providers.col.apiKey')}</th>
              <th>{t('providers.col.connection')}</th>
              <th>
                <span class="visually-hidden">{t('providers.col.actions')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {summary.providers.map((provider) => {
              const result = tests[provider.id];
              return (
                <tr key={provider.id} data-provider={provider.id}>
                  <td data-label={t('providers.col.provider')}>
                    <strong>{provider.name}</strong>{' '}
                    {provider.name !== provider.id && <span class="muted">({provider.id})</span>}{' '}
                    {provider.default && <span class="badge badge-ok">{t('providers.default')}</span>}
                  </td>
                  <td data-label={t('providers.col.address')}>
                    <div class="mono">{provider.base_url}</div>
                    <div class="muted">{provider.model || t('providers.noModel')}</div>
                  </td>
                  <td data-label={t('providers.col.apiKey')}>
                    <span class={provider.hasApiKey ? 'badge badge-ok' : 'badge'}>
                      {provider.hasApiKey ? t('providers.set') : t('providers.notSet')}
                    </span>
                  </td>
                  <td data-label={t('providers.col.connection')} aria-live="polite">
                    {result === 'running' ? (
                      <span class="muted">{t('providers.testing')}</span>
                    ) : result ? (
                      result.ok ? (
                        <span class="badge badge-ok">ok · {result.latencyMs} ms</span>
                      ) : (
                        <span class="node-log-error">{result.error}</span>
                      )
                    ) : (
                      <span class="muted">{t('providers.notTested')}</span>
                    )}
                  </td>
                  <td>
                    <div class="row-actions">
                      <button
                        type="button"
                        class="btn"
                        aria-label={t('providers.testAria', { id: provider.id })}
                        disabled={result === 'running'}
                        onClick={() => void test(provider)}
                      >
                        {t('providers.test')}
                      </button>
                      {!provider.default && (
                        <button
                          type="button"
                          class="btn"
                          aria-label={t('providers.makeDefaultAria', { id: provider.id })}
                          onClick={() => void makeDefault(provider)}
                        >
                          {t('providers.makeDefault')}
                        </button>
                      )}
                      <IconButton
                        icon="edit"
                        label={t('providers.editAria', { id: provider.id })}
                        title={t('providers.edit')}
                        onClick={() => open(provider)}
                      />
                      <IconButton
                        icon="trash"
                        label={t('providers.deleteAria', { id: provider.id })}
                        title={t('providers.deleteTitle')}
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
        title={
          editing?.existing ? t('providers.editTitle', { id: editing.existing.id }) : t('providers.addTitle')
        }
        open={editing !== null}
        onClose={() => setEditing(null)}
        wide
        actions={
          <FormActions
            form="provider-form"
            submitLabel={editing?.existing ? t('providers.save') : t('providers.add')}
            onCancel={() => setEditing(null)}
          />
        }
      >
        {editing && (
          <form id="provider-form" class="stack" onSubmit={(event) => void save(event)}>
            <FormError error={error} />
            <div class="form-grid">
              <label class="field">
                <span class="field-label">{t('providers.id')}</span>
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
                <span class="field-label">{t('providers.name')}</span>
                <input
                  class="input"
                  value={editing.draft.name}
                  placeholder="OpenAI"
                  onInput={(event) => set({ name: event.currentTarget.value })}
                />
              </label>
              <label class="field field-wide">
                <span class="field-label">{t('providers.baseUrl')}</span>
                <input
                  class="input mono"
                  type="url"
                  required
                  value={editing.draft.base_url}
                  onInput={(event) => set({ base_url: event.currentTarget.value })}
                />
                <span class="field-help">{t('providers.baseUrlHelp')}</span>
              </label>
              <label class="field">
                <span class="field-label">{t('providers.model')}</span>
                <input
                  class="input"
                  value={editing.draft.model}
                  placeholder="gpt-4o-mini"
                  onInput={(event) => set({ model: event.currentTarget.value })}
                />
              </label>
              <label class="field">
                <span class="field-label">
                  {t('providers.apiKey')}{' '}
                  {editing.existing && (
                    <span
                      class={
                        editing.existing.hasApiKey ? 'badge badge-ok secret-state' : 'badge secret-state'
                      }
                    >
                      {editing.existing.hasApiKey ? t('providers.set') : t('providers.notSet')}
                    </span>
                  )}
                </span>
                <input
                  class="input"
                  type="password"
                  autoComplete="off"
                  value={editing.draft.api_key}
                  placeholder={editing.existing ? t('providers.unchanged') : 'sk-…'}
                  onInput={(event) => set({ api_key: event.currentTarget.value })}
                />
                <span class="field-help">{t('providers.neverShown')}</span>
              </label>
            </div>
          </form>
        )}
      </Dialog>
    </section>
  );
}
