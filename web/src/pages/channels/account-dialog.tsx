// The add / edit form of one channel account: the platform's fields (as GET /channels/platforms
// describes them), write-only secrets ("set" / "not set"; an empty secret keeps the stored one),
// policies, allowlist, mention rule, enabled. A refused save shows each problem at its field.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../../api.ts';
import { t } from '../../i18n/index.ts';
import { Dialog, FormActions, FormError } from '../../ui/dialog.tsx';
import { toast } from '../../ui/toast.tsx';
import {
  isSecretSet,
  plainValue,
  POLICY_LABELS,
  problemsAtFields,
  visibleFields,
  type AccountView,
  type FieldSpec,
  type PlatformSpec,
  type Policy,
  type ProblemsAtFields,
} from './platform-fields.ts';
import type { CreatedAccountView } from '@server/resources/channels/channels.schema.ts';

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
  /** The platform's fields as typed (a field of fixed values holds its value). */
  values: Record<string, string>;
}

/** The value of the platform's `mode` field, where it has one. */
function modeOf(draft: Draft): string {
  return draft.values['mode'] ?? '';
}

/** The form's own fields that a problem can name besides the platform's. */
const COMMON_KEYS = ['id', 'name', 'description', 'allow_from'];

function draftOf(target: AccountTarget): Draft {
  const account = target.account;
  const values: Record<string, string> = {};
  for (const field of target.spec.fields) {
    if (field.secret) continue;
    const stored = account ? plainValue(account, field.key) : '';
    values[field.key] = stored || (field.options?.[0]?.value ?? '');
  }
  return {
    id: account?.id ?? '',
    name: account?.name ?? '',
    description: account?.description ?? '',
    enabled: account?.enabled ?? true,
    dmPolicy: account?.dmPolicy ?? 'allow',
    groupPolicy: account?.groupPolicy ?? 'allow',
    allowFrom: (account?.allowFrom ?? []).join('\n'),
    groupRequireMention: account?.groupRequireMention ?? false,
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
  for (const field of visibleFields(spec, modeOf(draft))) {
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
  onSaved: (created: CreatedAccountView | null) => Promise<void>;
}) {
  const [draft, setDraft] = useState<Draft | null>(null);
  const [problems, setProblems] = useState<ProblemsAtFields | null>(null);
  useEffect(() => {
    setDraft(target ? draftOf(target) : null);
    setProblems(null);
  }, [target]);

  const save = async (event: Event) => {
    event.preventDefault();
    if (!target || !draft) return;
    const { spec, account } = target;
    const path = account
      ? `/channels/${spec.id}/accounts/${encodeURIComponent(account.id)}`
      : `/channels/${spec.id}/accounts`;
    try {
      const answer = await api<CreatedAccountView>(path, {
        method: account ? 'PUT' : 'POST',
        body: bodyOf(target, draft),
        quiet: true,
      });
      toast(account ? t('acct.saved', { id: account.id }) : t('acct.added', { id: draft.id }), 'success');
      await onSaved(account ? null : answer);
    } catch (failure) {
      if (failure instanceof ApiError && failure.status !== 401) {
        const keys = [...COMMON_KEYS, ...visibleFields(spec, modeOf(draft)).map((field) => field.key)];
        setProblems(problemsAtFields(failure.message, keys));
      }
    }
  };

  const spec = target?.spec;
  const account = target?.account ?? null;
  const set = (change: Partial<Draft>) => draft && setDraft({ ...draft, ...change });
  const setValue = (key: string, value: string) =>
    draft && setDraft({ ...draft, values: { ...draft.values, [key]: value } });
  const problemAt = (key: string) => <FieldProblem key={`problem-${key}`} id={key} problems={problems} />;
  const invalidAt = (key: string) => (problems?.byField[key] ? { 'aria-invalid': true } : {});
  return (
    <Dialog
      title={
        account
          ? t('acct.editTitle', { platform: spec?.label ?? '', id: account.id })
          : t('acct.addTitle', { platform: spec?.label ?? '' })
      }
      open={target !== null}
      onClose={onClose}
      wide
      actions={
        <FormActions
          form="account-form"
          submitLabel={account ? t('acct.save') : t('acct.add')}
          onCancel={onClose}
        />
      }
    >
      {spec && draft && (
        <form id="account-form" class="stack" onSubmit={(event) => void save(event)}>
          {spec.intro && <p class="muted">{spec.intro}</p>}
          <FormError error={problems?.rest.join('; ')} />
          <div class="form-grid">
            <label class="field">
              <span class="field-label">{t('acct.id')}</span>
              <input
                class="input"
                required
                disabled={account !== null}
                value={draft.id}
                onInput={(event) => set({ id: event.currentTarget.value })}
                {...invalidAt('id')}
              />
              {problemAt('id')}
            </label>
            <label class="field">
              <span class="field-label">{t('acct.name')}</span>
              <input
                class="input"
                value={draft.name}
                onInput={(event) => set({ name: event.currentTarget.value })}
                {...invalidAt('name')}
              />
              {problemAt('name')}
            </label>
            {visibleFields(spec, modeOf(draft)).map((field) => (
              <PlatformField
                key={`${field.key}-${field.mode ?? ''}`}
                field={field}
                value={draft.values[field.key] ?? ''}
                state={account ? isSecretSet(spec, account, field) : undefined}
                editing={account !== null}
                problem={problems?.byField[field.key]}
                onInput={(value) => setValue(field.key, value)}
              />
            ))}
            <PolicySelect
              label={t('acct.dms')}
              direct
              value={draft.dmPolicy}
              onChange={(dmPolicy) => set({ dmPolicy })}
            />
            {spec.groups && (
              <PolicySelect
                label={t('acct.groups')}
                value={draft.groupPolicy}
                onChange={(groupPolicy) => set({ groupPolicy })}
              />
            )}
            <label class="field field-wide">
              <span class="field-label">{t('acct.allowlist')}</span>
              <textarea
                class="input code-input"
                rows={3}
                aria-label={t('acct.allowlist')}
                placeholder={t('acct.allowlistPlaceholder')}
                value={draft.allowFrom}
                onInput={(event) => set({ allowFrom: event.currentTarget.value })}
                {...invalidAt('allow_from')}
              />
              {problemAt('allow_from')}
              <span class="field-help">{t('acct.allowlistHelp')}</span>
            </label>
            <label class="field field-wide">
              <span class="field-label">{t('acct.description')}</span>
              <input
                class="input"
                value={draft.description}
                onInput={(event) => set({ description: event.currentTarget.value })}
                {...invalidAt('description')}
              />
              {problemAt('description')}
            </label>
            {spec.groups && (
              <label class="check">
                <input
                  type="checkbox"
                  checked={draft.groupRequireMention}
                  onChange={(event) => set({ groupRequireMention: event.currentTarget.checked })}
                />
                <span>{t('acct.mention')}</span>
              </label>
            )}
            <label class="check">
              <input
                type="checkbox"
                checked={draft.enabled}
                onChange={(event) => set({ enabled: event.currentTarget.checked })}
              />
              <span>{t('acct.enabled')}</span>
            </label>
          </div>
        </form>
      )}
    </Dialog>
  );
}

function PolicySelect<P extends Policy>({
  label,
  direct = false,
  value,
  onChange,
}: {
  label: string;
  /** The direct-message policy, the only one that offers pairing. */
  direct?: boolean;
  value: P;
  onChange: (policy: P) => void;
}) {
  return (
    <label class="field">
      <span class="field-label">{label}</span>
      <select class="input" value={value} onChange={(event) => onChange(event.currentTarget.value as P)}>
        {Object.entries(POLICY_LABELS)
          .filter(([policy]) => policy !== 'pairing' || direct)
          .map(([policy, text]) => (
            <option key={policy} value={policy}>
              {t(text)}
            </option>
          ))}
      </select>
    </label>
  );
}

/** A problem of one field, in words, under it. */
function FieldProblem({ id, problems }: { id: string; problems: ProblemsAtFields | null }) {
  const why = problems?.byField[id];
  return why ? (
    <span class="field-error" role="alert">
      {why}
    </span>
  ) : null;
}

/** One of the platform's fields: a select for fixed values, a password box for a reported secret. */
function PlatformField({
  field,
  value,
  state,
  editing,
  problem,
  onInput,
}: {
  field: FieldSpec;
  value: string;
  /** For a secret of a stored account: whether it is set. */
  state: boolean | undefined;
  editing: boolean;
  problem: string | undefined;
  onInput: (value: string) => void;
}) {
  return (
    <label class="field">
      <span class="field-label">
        {field.label}{' '}
        {state !== undefined && (
          <span class={state ? 'badge badge-ok secret-state' : 'badge secret-state'}>
            {state ? t('acct.set') : t('acct.notSet')}
          </span>
        )}
      </span>
      {field.options ? (
        <select class="input" value={value} onChange={(event) => onInput(event.currentTarget.value)}>
          {field.options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      ) : (
        <input
          class="input"
          // A secret whose being set is reported is typed unseen; an API origin is not a password.
          {...(field.secret && field.reported !== false ? { type: 'password' } : { type: 'text' })}
          autoComplete="off"
          placeholder={field.secret && editing ? t('acct.unchanged') : ''}
          value={value}
          onInput={(event) => onInput(event.currentTarget.value)}
          aria-invalid={problem ? true : undefined}
        />
      )}
      {problem && (
        <span class="field-error" role="alert">
          {problem}
        </span>
      )}
      {field.help && <span class="field-help">{field.help}</span>}
    </label>
  );
}
