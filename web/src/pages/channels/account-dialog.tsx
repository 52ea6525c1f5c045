// The add / edit form of one channel account: the platform's fields, write-only secrets ("set" /
// "not set"; an empty secret keeps the stored one), policies, allowlist, mention rule, enabled.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../../api.ts';
import { Dialog, FormActions, FormError } from '../../ui/dialog.tsx';
import { toast } from '../../ui/toast.tsx';
import {
  isSecretSet,
  plainValue,
  POLICY_LABELS,
  type AccountView,
  type PlatformSpec,
  type Policy,
} from './platform-fields.ts';

export interface AccountTarget {
  spec: PlatformSpec;
  /** null: a new account. */
  account: AccountView | null;
}

/** The form's state: the account's own fields, the allowlist as text (one entry a line). */
interface Draft extends Pick<
  AccountView,
  'id' | 'name' | 'description' | 'enabled' | 'dmPolicy' | 'groupPolicy'
> {
  allowFrom: string;
  groupRequireMention: boolean;
  mode: 'bot' | 'app';
  values: Record<string, string>;
}

function draftOf(target: AccountTarget): Draft {
  const account = target.account;
  const values: Record<string, string> = {};
  for (const field of target.spec.fields)
    if (!field.secret && account) values[field.key] = plainValue(account, field.key);
  return {
    id: account?.id ?? '',
    name: account?.name ?? '',
    description: account?.description ?? '',
    enabled: account?.enabled ?? true,
    dmPolicy: account?.dmPolicy ?? 'allow',
    groupPolicy: account?.groupPolicy ?? 'allow',
    allowFrom: (account?.allowFrom ?? []).join('\n'),
    groupRequireMention: account?.groupRequireMention ?? false,
    mode: account?.mode ?? 'bot',
    values,
  };
}

/** The request body: plain fields as typed, secrets only when typed (empty keeps the stored one). */
function bodyOf(target: AccountTarget, draft: Draft): Record<string, unknown> {
  const { spec, account } = target;
  const body: Record<string, unknown> = {
    name: draft.name,
    description: draft.description,
    enabled: draft.enabled,
    dm_policy: draft.dmPolicy,
    allow_from: draft.allowFrom
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean),
  };
  if (spec.groups) {
    body['group_policy'] = draft.groupPolicy;
    body['group_require_mention'] = draft.groupRequireMention;
  }
  if (spec.id === 'wecom') body['mode'] = draft.mode;
  for (const field of spec.fields) {
    if (field.mode && spec.id === 'wecom' && field.mode !== draft.mode) continue;
    // An empty secret keeps the stored one; an emptied plain field is left as it was too (the
    // account update merges, and has no way to remove a field).
    const value = (draft.values[field.key] ?? '').trim();
    if (value) body[field.key] = value;
  }
  if (!account) body['id'] = draft.id.trim();
  return body;
}

export function AccountDialog({
  target,
  onClose,
  onSaved,
}: {
  target: AccountTarget | null;
  onClose: () => void;
  onSaved: (created: { apiKey?: string } | null) => Promise<void>;
}) {
  const [draft, setDraft] = useState<Draft | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    setDraft(target ? draftOf(target) : null);
    setError('');
  }, [target]);

  const save = async (event: Event) => {
    event.preventDefault();
    if (!target || !draft) return;
    const { spec, account } = target;
    const path = account
      ? `/channels/${spec.id}/accounts/${encodeURIComponent(account.id)}`
      : `/channels/${spec.id}/accounts`;
    try {
      const answer = await api<{ apiKey?: string }>(path, {
        method: account ? 'PUT' : 'POST',
        body: bodyOf(target, draft),
        quiet: true,
      });
      toast(account ? `Account "${account.id}" saved` : `Account "${draft.id}" added`, 'success');
      await onSaved(account ? null : answer);
    } catch (failure) {
      if (failure instanceof ApiError && failure.status !== 401) setError(failure.message);
    }
  };

  const spec = target?.spec;
  const account = target?.account ?? null;
  const set = (change: Partial<Draft>) => draft && setDraft({ ...draft, ...change });
  const setValue = (key: string, value: string) =>
    draft && setDraft({ ...draft, values: { ...draft.values, [key]: value } });
  return (
    <Dialog
      title={account ? `Edit ${spec?.label ?? ''} account ${account.id}` : `Add ${spec?.label ?? ''} account`}
      open={target !== null}
      onClose={onClose}
      wide
      actions={
        <FormActions form="account-form" submitLabel={account ? 'Save' : 'Add account'} onCancel={onClose} />
      }
    >
      {spec && draft && (
        <form id="account-form" class="stack" onSubmit={(event) => void save(event)}>
          {spec.intro && <p class="muted">{spec.intro}</p>}
          <FormError error={error} />
          <div class="form-grid">
            <label class="field">
              <span class="field-label">Account ID</span>
              <input
                class="input"
                required
                disabled={account !== null}
                value={draft.id}
                onInput={(event) => set({ id: event.currentTarget.value })}
              />
            </label>
            <label class="field">
              <span class="field-label">Display name</span>
              <input
                class="input"
                value={draft.name}
                onInput={(event) => set({ name: event.currentTarget.value })}
              />
            </label>
            {spec.id === 'wecom' && (
              <label class="field">
                <span class="field-label">Mode</span>
                <select
                  class="input"
                  value={draft.mode}
                  onChange={(event) => set({ mode: event.currentTarget.value as 'bot' | 'app' })}
                >
                  <option value="bot">Smart robot (long connection)</option>
                  <option value="app">Self-built app (callbacks)</option>
                </select>
              </label>
            )}
            {spec.fields
              .filter((field) => !(field.mode && field.mode !== draft.mode))
              .map((field) => {
                const state = account && field.secret ? isSecretSet(spec, account, field.key) : undefined;
                return (
                  <label key={`${field.key}-${field.mode ?? ''}`} class="field">
                    <span class="field-label">
                      {field.label}{' '}
                      {state !== undefined && (
                        <span class={state ? 'badge badge-ok secret-state' : 'badge secret-state'}>
                          {state ? 'set' : 'not set'}
                        </span>
                      )}
                    </span>
                    {field.secret && field.key !== 'api_base' ? (
                      <input
                        class="input"
                        type="password"
                        autoComplete="off"
                        placeholder={account ? 'unchanged' : ''}
                        value={draft.values[field.key] ?? ''}
                        onInput={(event) => setValue(field.key, event.currentTarget.value)}
                      />
                    ) : (
                      <input
                        class="input"
                        type="text"
                        autoComplete="off"
                        placeholder={field.secret && account ? 'unchanged' : ''}
                        value={draft.values[field.key] ?? ''}
                        onInput={(event) => setValue(field.key, event.currentTarget.value)}
                      />
                    )}
                    {field.help && <span class="field-help">{field.help}</span>}
                  </label>
                );
              })}
            <PolicySelect
              label="Direct messages"
              value={draft.dmPolicy}
              onChange={(dmPolicy) => set({ dmPolicy })}
            />
            {spec.groups && (
              <PolicySelect
                label="Group chats"
                value={draft.groupPolicy}
                onChange={(groupPolicy) => set({ groupPolicy })}
              />
            )}
            <label class="field field-wide">
              <span class="field-label">Allowlist</span>
              <textarea
                class="input code-input"
                rows={3}
                aria-label="Allowlist"
                placeholder="one user or chat id per line"
                value={draft.allowFrom}
                onInput={(event) => set({ allowFrom: event.currentTarget.value })}
              />
              <span class="field-help">
                Used by the "Only the allowlist" policies: user ids (and group chat ids for groups), one per
                line.
              </span>
            </label>
            <label class="field field-wide">
              <span class="field-label">Description</span>
              <input
                class="input"
                value={draft.description}
                onInput={(event) => set({ description: event.currentTarget.value })}
              />
            </label>
            {spec.groups && (
              <label class="check">
                <input
                  type="checkbox"
                  checked={draft.groupRequireMention}
                  onChange={(event) => set({ groupRequireMention: event.currentTarget.checked })}
                />
                <span>In groups, answer only when the bot is mentioned</span>
              </label>
            )}
            <label class="check">
              <input
                type="checkbox"
                checked={draft.enabled}
                onChange={(event) => set({ enabled: event.currentTarget.checked })}
              />
              <span>Enabled</span>
            </label>
          </div>
        </form>
      )}
    </Dialog>
  );
}

function PolicySelect({
  label,
  value,
  onChange,
}: {
  label: string;
  value: Policy;
  onChange: (policy: Policy) => void;
}) {
  return (
    <label class="field">
      <span class="field-label">{label}</span>
      <select class="input" value={value} onChange={(event) => onChange(event.currentTarget.value as Policy)}>
        {Object.entries(POLICY_LABELS)
          .filter(([policy]) => policy !== 'pairing' || label.startsWith('Direct'))
          .map(([policy, text]) => (
            <option key={policy} value={policy}>
              {text}
            </option>
          ))}
      </select>
    </label>
  );
}
