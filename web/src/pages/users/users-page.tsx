// Users (admins only): create, reset a password, change role and agents, disable, delete. Members
// chat with the agents they are given and see only their own sessions; admins do everything.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../../api.ts';
import type { PageProps } from '../../routes.ts';
import { confirmDelete, promptText } from '../../ui/confirm.tsx';
import { Dialog, FormActions, FormError } from '../../ui/dialog.tsx';
import { toast } from '../../ui/toast.tsx';
import '../../styles/manage.css';

interface User {
  name: string;
  role: 'admin' | 'member';
  disabled: boolean;
  agents: string[];
  hasApiKey: boolean;
}

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
      setUsers((await api<{ data: User[] }>('/users')).data);
    } catch {
      setUsers([]);
    }
  }, []);
  useEffect(() => {
    void reload();
    api<{ data: Array<{ ruleChain: { id: string } }> }>('/agents', { query: { size: 100 } }).then(
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
        toast(`User ${existing.name} saved`, 'success');
      } else {
        await api('/users', { method: 'POST', body: draft, quiet: true });
        toast(`User ${draft.name} created`, 'success');
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
      title: `Reset the password of ${user.name}`,
      label: 'New password (at least 8 characters)',
      confirmLabel: 'Reset password',
    });
    if (password)
      await update(user, { password }, `Password of ${user.name} reset; their sessions are signed out`);
  };

  const remove = async (user: User) => {
    await confirmDelete(
      {
        title: 'Delete user',
        message: `Delete user ${user.name}? Their logins and API key stop working at once.`,
        confirmLabel: 'Delete user',
      },
      async () => {
        await api(`/users/${encodeURIComponent(user.name)}`, { method: 'DELETE' });
        toast(`User ${user.name} deleted`, 'success');
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
        <h1 class="page-title">Users</h1>
        <button
          type="button"
          class="btn btn-primary"
          onClick={() => {
            setError('');
            setEditing({ existing: null, draft: { name: '', password: '', role: 'member', agents: [] } });
          }}
        >
          Add user
        </button>
      </div>
      <p class="muted">
        Admins manage everything. Members chat with the agents they are given and see only their own
        conversations and API key. A disabled or deleted user is signed out at once.
      </p>
      {users === null ? (
        <p class="muted">Loading…</p>
      ) : (
        <section class="card" aria-label="Users list">
          {users.map((user) => (
            <div class="account-row" key={user.name} data-user={user.name}>
              <span class="list-item-main">
                <span class="list-item-title">
                  {user.name} {user.disabled && <span class="badge">disabled</span>}
                </span>
                <span class="muted list-item-sub">
                  {user.role === 'admin' ? 'admin' : `member · agents: ${user.agents.join(', ') || 'none'}`}
                  {user.hasApiKey ? ' · API key set' : ''}
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
                Edit
              </button>
              <button type="button" class="btn" onClick={() => void resetPassword(user)}>
                Reset password
              </button>
              <button
                type="button"
                class="btn"
                onClick={() =>
                  void update(
                    user,
                    { disabled: !user.disabled },
                    `User ${user.name} ${user.disabled ? 'enabled' : 'disabled'}`,
                  )
                }
              >
                {user.disabled ? 'Enable' : 'Disable'}
              </button>
              <button type="button" class="btn btn-danger" onClick={() => void remove(user)}>
                Delete
              </button>
            </div>
          ))}
        </section>
      )}
      <Dialog
        title={editing?.existing ? `Edit user ${editing.existing.name}` : 'Add a user'}
        open={editing !== null}
        onClose={() => setEditing(null)}
        actions={<FormActions form="user-form" submitLabel="Save" onCancel={() => setEditing(null)} />}
      >
        {draft && (
          <form id="user-form" class="stack" onSubmit={(event) => void save(event)}>
            <FormError error={error} />
            {!editing?.existing && (
              <>
                <label class="field">
                  <span class="field-label">Name</span>
                  <input
                    class="input"
                    required
                    value={draft.name}
                    onInput={(event) => setDraft({ name: event.currentTarget.value })}
                  />
                </label>
                <label class="field">
                  <span class="field-label">Password</span>
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
              <span class="field-label">Role</span>
              <select
                class="input"
                value={draft.role}
                onChange={(event) => setDraft({ role: event.currentTarget.value as Draft['role'] })}
              >
                <option value="member">Member: chats with its agents</option>
                <option value="admin">Admin: everything</option>
              </select>
            </label>
            {draft.role === 'member' && (
              <fieldset class="field">
                <legend class="field-label">Agents this member may use</legend>
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
