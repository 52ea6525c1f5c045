// A platform's account fields, declared once beside its adapter: a zod object whose fields carry
// their form label, help, whether they are secret and whether they are required in `.meta`. The
// manager's and the API's validation, which fields are write-only, the API's account view and the
// form of GET /channels/platforms are all read from it.
import { z } from 'zod';
import { commonAccountFields, type AccountConfig, type Platform } from '../config/schema.ts';

export interface AccountFieldMeta {
  label: string;
  help?: string;
  /** Write-only: accepted, never shown; views list it in `secretsSet` when it is set. */
  secret?: boolean;
  /** Never shown and not reported as set either (an API origin: it may name a private proxy). */
  hidden?: boolean;
  /** Needed by an enabled account (only in `mode`, where that is given). */
  required?: boolean;
  /** How the problem names a missing value: "<missing> is required" (default: the label). */
  missing?: string;
  /** The field is shown and required only while the account's `mode` field has this value. */
  mode?: string;
  /** Another label, help or missing text while the account is in a mode. */
  modes?: Record<string, Partial<Pick<AccountFieldMeta, 'label' | 'help' | 'missing'>>>;
  /** For a field of fixed values: the text each value is shown as. */
  options?: Record<string, string>;
}

type FieldSchema = z.ZodType<string | undefined>;
type FieldShape = Record<string, FieldSchema>;

export interface PlatformAccountDefinition<Shape extends FieldShape> {
  platform: Platform;
  /** How the platform is named in the web UI. */
  label: string;
  /** One sentence on what an account of this platform is. */
  intro: string;
  /** Whether the platform has group chats (group policy, mention rule); default true. */
  groups?: boolean;
  /** The platform's own fields, in form order; the first secret is its main credential (hasSecret). */
  fields: Shape;
  /** Rules across fields a field's own schema cannot state (one problem a line, "field: why"). */
  check?(account: AccountConfig & Partial<z.output<z.ZodObject<Shape>>>): string[];
}

/** The common fields and the platform's, as the config file and the adapter see an account. */
export type PlatformAccountConfig<Shape extends FieldShape> = AccountConfig & {
  [K in keyof Shape]?: z.output<Shape[K]>;
};

export interface PlatformAccount<Config extends AccountConfig = AccountConfig> {
  readonly platform: Platform;
  readonly label: string;
  readonly intro: string;
  readonly groups: boolean;
  readonly fields: Readonly<Record<string, FieldSchema>>;
  /** The common fields extended by the platform's; unknown fields are refused. */
  readonly schema: z.ZodType<Config>;
  check?(account: Config): string[];
}

/** The account type a platform's declaration gives its adapter. */
export type AccountOf<P> = P extends PlatformAccount<infer Config> ? Config : never;

/** Declares a platform's account fields (each with its `.meta`, see AccountFieldMeta). */
export function platformAccount<Shape extends FieldShape>(
  definition: PlatformAccountDefinition<Shape>,
): PlatformAccount<PlatformAccountConfig<Shape>> {
  const optional = Object.fromEntries(
    Object.entries(definition.fields).map(([name, field]) => [name, field.optional()]),
  );
  const schema = z.strictObject({ ...commonAccountFields, ...optional });
  return {
    platform: definition.platform,
    label: definition.label,
    intro: definition.intro,
    groups: definition.groups ?? true,
    fields: definition.fields,
    schema: schema as unknown as z.ZodType<PlatformAccountConfig<Shape>>,
    ...(definition.check ? { check: definition.check.bind(definition) } : {}),
  } as PlatformAccount<PlatformAccountConfig<Shape>>;
}

/** A field's meta; every field of a platform's object has one. */
export function metaOf(field: FieldSchema): AccountFieldMeta {
  return (field.meta() ?? { label: '' }) as unknown as AccountFieldMeta;
}

/** The origin of a platform's API (a private deployment or a proxy); never shown once saved. */
export function apiBaseField(
  help = 'The platform API’s origin, for a private deployment or a proxy. Never shown once saved.',
): z.ZodType<string> {
  return z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .max(2000)
    .refine((value) => {
      const url = new URL(value);
      return url.username === '' && url.password === '';
    }, 'must not carry a user name or password')
    .meta({
      label: 'API base URL (optional)',
      help,
      secret: true,
      hidden: true,
    } satisfies AccountFieldMeta);
}

/** A credential or other write-only text field. */
export function secretField(meta: Omit<AccountFieldMeta, 'secret'>): z.ZodType<string> {
  return z
    .string()
    .min(1, 'must not be empty')
    .max(4096)
    .meta({ ...meta, secret: true } satisfies AccountFieldMeta);
}

/** A plain text field (shown in views). */
export function textField(
  meta: AccountFieldMeta,
  schema: z.ZodString = z.string().max(500),
): z.ZodType<string> {
  return schema.meta({ ...meta });
}

/** The names of a platform's secret fields, in declaration order. */
export function secretFields(account: PlatformAccount): string[] {
  return Object.entries(account.fields)
    .filter(([, field]) => metaOf(field).secret)
    .map(([name]) => name);
}

/** The value of the account's `mode` field, or the first value it may take when unset. */
function modeOf(account: PlatformAccount, config: Record<string, unknown>): string | undefined {
  const field = account.fields['mode'];
  if (!field) return undefined;
  const value = config['mode'];
  if (typeof value === 'string') return value;
  return Object.keys(metaOf(field).options ?? {})[0];
}

/**
 * The problems of an account for its platform, one "field: why" each: fields of other platforms,
 * malformed values, and (for an enabled account) missing required fields.
 */
export function accountProblems(
  account: PlatformAccount,
  raw: unknown,
  options: { required?: boolean } = {},
): string[] {
  const problems: string[] = [];
  const parsed = account.schema.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) problems.push(`${key}: not used by ${account.platform}`);
      } else problems.push(`${issue.path.map(String).join('.') || 'account'}: ${issue.message}`);
    }
  }
  const config = (raw ?? {}) as Record<string, unknown>;
  if (config['enabled'] !== false && options.required !== false) {
    const mode = modeOf(account, config);
    for (const [name, field] of Object.entries(account.fields)) {
      const meta = metaOf(field);
      if (!meta.required || (meta.mode !== undefined && meta.mode !== mode)) continue;
      const value = config[name];
      if (typeof value === 'string' && value.trim() !== '') continue;
      const missing =
        (mode !== undefined ? meta.modes?.[mode]?.missing : undefined) ?? meta.missing ?? meta.label;
      problems.push(`${name}: ${missing} is required`);
    }
  }
  // Cross-field rules say what is needed together (slack: one of two tokens): required-ness too.
  if (parsed.success && account.check && options.required !== false)
    problems.push(...account.check(parsed.data));
  return problems;
}

/** Parses an account for its adapter: the typed account, or the problems that keep it from running. */
export function parseAccount<Config extends AccountConfig>(
  account: PlatformAccount<Config>,
  raw: unknown,
): { config: Config; problems: [] } | { config?: undefined; problems: string[] } {
  const problems = accountProblems(account as unknown as PlatformAccount, raw);
  if (problems.length > 0) return { problems };
  return { config: account.schema.parse(raw), problems: [] };
}

/** One field of a platform's account form (GET /channels/platforms). */
export interface PlatformFieldView {
  key: string;
  label: string;
  help?: string;
  secret: boolean;
  /** A secret whose being set views report (hasSecret, secretsSet); false for a hidden one. */
  reported?: boolean;
  required: boolean;
  /** Shown only while the account's `mode` field has this value. */
  mode?: string;
  /** A field of fixed values: each value with its text. */
  options?: Array<{ value: string; label: string }>;
}

export interface PlatformFormView {
  id: Platform;
  label: string;
  intro: string;
  groups: boolean;
  /** The field whose being set `hasSecret` reports. */
  mainSecret: string;
  fields: PlatformFieldView[];
}

/** The form of a platform's accounts, as the web UI renders it. */
export function describePlatform(account: PlatformAccount): PlatformFormView {
  const modes = Object.keys(metaOf(account.fields['mode'] ?? z.string()).options ?? {});
  const fields: PlatformFieldView[] = [];
  for (const [key, field] of Object.entries(account.fields)) {
    const meta = metaOf(field);
    const view = (mode: string | undefined): PlatformFieldView => {
      const other = mode === undefined ? undefined : meta.modes?.[mode];
      const help = other?.help ?? meta.help;
      return {
        key,
        label: other?.label ?? meta.label,
        ...(help === undefined ? {} : { help }),
        secret: meta.secret === true,
        ...(meta.secret ? { reported: meta.hidden !== true } : {}),
        required: meta.required === true,
        ...(mode === undefined ? {} : { mode }),
        ...(meta.options
          ? { options: Object.entries(meta.options).map(([value, label]) => ({ value, label })) }
          : {}),
      };
    };
    // A field whose label changes with the mode is listed once per mode.
    if (meta.modes && meta.mode === undefined) fields.push(...modes.map((mode) => view(mode)));
    else fields.push(view(meta.mode));
  }
  return {
    id: account.platform,
    label: account.label,
    intro: account.intro,
    groups: account.groups,
    mainSecret: mainSecretOf(account),
    fields,
  };
}

/** The field whose being set `hasSecret` reports: the platform's first shown secret. */
function mainSecretOf(account: PlatformAccount): string {
  return secretFields(account).find((name) => !metaOf(account.fields[name] as FieldSchema).hidden) ?? '';
}

const camelCase = (name: string): string =>
  name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());

/**
 * What a view shows of an account's platform fields: whether the main secret is set, which other
 * secrets are, and the plain fields by their camelCase names (app_id as appId). Hidden fields and
 * secret values never appear.
 */
export function platformFieldsView(
  account: PlatformAccount,
  config: Record<string, unknown>,
): { hasSecret: boolean; secretsSet: string[]; plain: Record<string, string> } {
  const main = mainSecretOf(account);
  const secretsSet: string[] = [];
  const plain: Record<string, string> = {};
  for (const [name, field] of Object.entries(account.fields)) {
    const meta = metaOf(field);
    const value = config[name];
    if (meta.hidden || name === main) continue;
    if (meta.secret) {
      if (typeof value === 'string' && value !== '') secretsSet.push(name);
    } else if (typeof value === 'string') plain[camelCase(name)] = value;
  }
  const secret = config[main];
  return { hasSecret: typeof secret === 'string' && secret !== '', secretsSet, plain };
}
