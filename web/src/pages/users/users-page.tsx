// Users (admins only): create, reset a password, change role and agents, disable, delete. Members
// chat with the agents they are given and see only their own sessions; admins do everything.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../../api.ts';
import { t } from '../../i18n/index.ts';
import type { PageProps } from '../../routes.ts';
import type { AgentView, Page } from '../../types.ts';
import { confirmDelete, promptText } from '../../ui/confirm.tsx';
import { Dialog, FormActions, FormError } from '../../ui/dialog.tsx';
import { toast } from '../../ui/toast.tsx';
import '../../styles/manage.css';
import type { UserView } from '@server/resources/users/users.schema.ts';
import type { UserList } from '@server/resources/users/users.schema.ts';

type User = UserView;

interface Draft {
  name: string;
  password: string;
  role: 'admin' | 'member';
  agents: string[];
}

export function UsersPage(_props: PageProps) {
  const [users, setUsers] = useState<User[] | null>(null);
  const [agentIds, setAgentIds] = useState<string[]>([]);
  const [editing, setEditing] = useState<{ draft: Draft; existing: User | null } | null>(null);
  const [error, setError] = useState('');

  const reload = useCallback(async () => {
    try {
      setUsers((await api<UserList>('/users')).data);
    } catch {
      setUsers([]);
    }
  }, []);
  useEffect(() => {
    void reload();
    api<Page<AgentView>>('/agents', { query: { size: 100 } }).then(
      (page) => setAgentIds(page.data.map((agent) => agent.ruleChain.id)),
      () => undefined,
    );
  }, [reload]);

  const save = async (event: Event) => {
    event.preventDefault();
    if (!editing) return;
    const { draft, existing } = editing;
    setError('');
    try {
      if (existing) {
        await api(`/users/${encodeURIComponent(existing.name)}`, {
          method: 'PUT',
          body: { role: draft.role, agents: draft.role === 'member' ? draft.agents : [] },
          quiet: true,
        });
        toast(t('users.saved', { name: existing.name }), 'success');
      } else {
        await api('/users', { method: 'POST', body: draft, quiet: true });
        toast(t('users.created', { name: draft.name }), 'success');
      }
      setEditing(null);
      await reload();
    } catch (failure) {
      if (failure instanceof ApiError) setError(failure.message);
    }
  };

  const update = async (user: User, body: Record<string, unknown>, done: string) => {
    try {
      await api(`/users/${encodeURIComponent(user.name)}`, { method: 'PUT', body });
      toast(done, 'success');
    } catch {
      // toasted
    }
    await reload();
  };

  const resetPassword = async (user: User) => {
    const password = await promptText({
      title: t('users.reset.title', { name: user.name }),
      label: t('users.reset.label'),
      confirmLabel: t('users.reset.confirm'),
    });
    if (password) await update(user, { password }, t('users.reset.done', { name: user.name }));
  };

  const remove = async (user: User) => {
    await confirmDelete(
      {
        title: t('users.delete.title'),
        message: t('users.delete.message', { name: user.name }),
        confirmLabel: t('users.delete.title'),
      },
      async () => {
        await api(`/users/${encodeURIComponent(user.name)}`, { method: 'DELETE' });
        toast(t('users.deleted', { name: user.name }), 'success');
      },
    );
    await reload();
  };

  const draft = editing?.draft;
  const setDraft = (patch: Partial<Draft>) =>
    editing && setEditing({ ...editing, draft: { ...editing.draft, ...patch } });

  return (
    <div class="page stack">
      <div class="toolbar">
        <h1 class="page-title">{t('users.title')}</h1>
        <button
          type="button"
          class="btn btn-primary"
          onClick={() => {
            setError('');
            setEditing({ existing: null, draft: { name: '', password: '', role: 'member', agents: [] } });
          }}
        >
          {t('users.add')}
        </button>
      </div>
      <p class="muted">{t('users.intro')}</p>
      {users === null ? (
        <p class="muted">{t('users.loading')}</p>
      ) : (
        <section class="card" aria-label={t('users.list')}>
          {users.map((user) => (
            <div class="account-row" key={user.name} data-user={user.name}>
              <span class="list-item-main">
                <span class="list-item-title">
                  {user.name} {user.disabled && <span class="badge">{t('users.disabledBadge')}</span>}
                </span>
                <span class="muted list-item-sub">
                  {user.role === 'admin'
                    ? t('users.admin')
                    : t('users.member', { agents: user.agents.join(', ') || t('users.none') })}
                  {user.hasApiKey ? t('users.apiKeySet') : ''}
                </span>
              </span>
              <button
                type="button"
                class="btn"
                onClick={() => {
                  setError('');
                  setEditing({
                    existing: user,
                    draft: { name: user.name, password: '', role: user.role, agents: user.agents },
                  });
                }}
              >
                {t('users.edit')}
              </button>
              <button type="button" class="btn" onClick={() => void resetPassword(user)}>
                {t('users.reset.confirm')}
              </button>
              <button
                type="button"
                class="btn"
                onClick={() =>
                  void update(
                    user,
                    { disabled: !user.disabled },
                    user.disabled
                      ? t('users.enabledToast', { name: user.name })
                      : t('users.disabledToast', { name: user.name }),
                  )
                }
              >
                {user.disabled ? t('users.enable') : t('users.disable')}
              </button>
              <button type="button" class="btn btn-danger" onClick={() => void remove(user)}>
                {t('users.delete')}
              </button>
            </div>
          ))}
        </section>
      )}
      <Dialog
        title={
          editing?.existing ? t('users.editTitle', { name: editing.existing.name }) : t('users.addTitle')
        }
        open={editing !== null}
        onClose={() => setEditing(null)}
        actions={
          <FormActions form="user-form" submitLabel={t('users.save')} onCancel={() => setEditing(null)} />
        }
      >
        {draft && (
          <form id="user-form" class="stack" onSubmit={(event) => void save(event)}>
            <FormError error={error} />
            {!editing?.existing && (
              <>
                <label class="field">
                  <span class="field-label">{t('users.name')}</span>
                  <input
                    class="input"
                    required
                    value={draft.name}
                    onInput={(event) => setDraft({ name: event.currentTarget.value })}
                  />
                </label>
                <label class="field">
                  <span class="field-label">{t('users.password')}</span>
                  <input
                    class="input"
                    type="password"
                    autoComplete="new-password"
                    required
                    minLength={8}
                    value={draft.password}
                    onInput={(event) => setDraft({ password: event.currentTarget.value })}
                  />
                </label>
              </>
            )}
            <label class="field">
              <span class="field-label">{t('users.role')}</span>
              <select
                class="input"
                value={draft.role}
                onChange={(event) => setDraft({ role: event.currentTarget.value as Draft['role'] })}
              >
                <option value="member">{t('users.roleMember')}</option>
                <option value="admin">{t('users.roleAdmin')}</option>
              </select>
            </label>
            {draft.role === 'member' && (
              <fieldset class="field">
                <legend class="field-label">{t('users.agents')}</legend>
                {agentIds.map((id) => (
                  <label class="inline-check" key={id}>
                    <input
                      type="checkbox"
                      checked={draft.agents.includes(id)}
                      onChange={(event) =>
                        setDraft({
                          agents: event.currentTarget.checked
                            ? [...draft.agents, id]
                            : draft.agents.filter((agent) => agent !== id),
                        })
                      }
                    />
                    {id}
                  </label>
                ))}
              </fieldset>
            )}
          </form>
        )}
      </Dialog>
    </div>
  );
}
