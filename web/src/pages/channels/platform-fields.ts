// The shapes of the channels answers, and helpers over a platform's account form. The forms
// themselves (which fields a platform takes, their labels, help and which are secret) come from the
// server, GET /channels/platforms, where each platform declares them once beside its adapter.
import type {
  AccountView,
  PlatformFieldView,
  PlatformFormView,
  PlatformView,
} from '@server/resources/channels/channels.schema.ts';
import type { MessageKey } from '../../i18n/index.ts';

export type { AccountView, PlatformView };
/** One field of a platform's account form, as GET /channels/platforms describes it. */
export type FieldSpec = PlatformFieldView;
export type PlatformSpec = PlatformFormView;
export type Policy = AccountView['dmPolicy'];

const camelCase = (key: string): string =>
  key.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());

/** Whether a secret field is set on a stored account; undefined for one never reported. */
export function isSecretSet(spec: PlatformSpec, account: AccountView, field: FieldSpec): boolean | undefined {
  if (!field.secret || field.reported === false) return undefined;
  if (field.key === spec.mainSecret) return account.hasSecret;
  return account.secretsSet.includes(field.key);
}

/** The visible value of a plain field on a stored account. */
export function plainValue(account: AccountView, key: string): string {
  const value = account[camelCase(key)];
  return typeof value === 'string' ? value : '';
}

/** The fields of the form shown for the account's current mode (all, on a platform without modes). */
export function visibleFields(spec: PlatformSpec, mode: string): FieldSpec[] {
  return spec.fields.filter((field) => field.mode === undefined || field.mode === mode);
}

export interface ProblemsAtFields {
  /** Each field's problem, in words ("The bot token is required"). */
  byField: Record<string, string>;
  /** What names no field of the form. */
  rest: string[];
}

/**
 * Splits an API error into the form's fields: `telegram account "x": app_secret: the bot token is
 * required; api_base: must be an http(s) URL`, or `body.name: Too big: ...`.
 */
export function problemsAtFields(message: string, keys: readonly string[]): ProblemsAtFields {
  const body = message.replace(/^[a-z_]+ account "[^"]*": /, '');
  const byField: Record<string, string> = {};
  const rest: string[] = [];
  for (const problem of body.split('; ')) {
    const match = /^(?:body\.)?([a-z_]+)(?:\.\d+)?: (.+)$/s.exec(problem);
    const key = match?.[1];
    const why = match?.[2];
    if (key && why && keys.includes(key) && byField[key] === undefined) {
      byField[key] = why.charAt(0).toUpperCase() + why.slice(1);
    } else rest.push(problem);
  }
  return { byField, rest };
}

/** The dictionary keys of the policies' names (t() gives the text). */
export const POLICY_LABELS: Record<Policy, MessageKey> = {
  allow: 'policy.allow',
  allowlist: 'policy.allowlist',
  disabled: 'policy.disabled',
  pairing: 'policy.pairing',
};
