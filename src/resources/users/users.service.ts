// Users over REST: list, create, update (reset password, role, agents, disable), delete; the
// caller's own identity; and the requireAuth switch. Users live in the config file: the password
// entry in security.users (`<password>[:<api key>]`, the password scrypt-hashed when written here)
// and role/state in security.user_access. A change takes effect at once: the auth service reads
// the new config on every request, so the tokens and keys of a disabled or deleted user fail.
import type { Principal } from '../../auth/auth-service.ts';
import { userAccess } from '../../auth/user-access.ts';
import { formatUserEntry, parseUserEntry } from '../../auth/users.ts';
import type { ConfigStore, DocumentEditor } from '../../config/config-store.ts';
import { DEFAULT_ADMIN_PASSWORD, type Config } from '../../config/schema.ts';
import { conflict, invalid, notFound } from '../../core/errors.ts';
import { own } from '../../core/id-schema.ts';
import { hashPassword, isPasswordHash, verifyPassword } from '../../core/secrets.ts';
import type { AgentCheck } from '../agents/agents.service.ts';
import type { CreateUserBody, MeView, SecurityView, UpdateUserBody, UserView } from './users.schema.ts';

function exists(agents: AgentCheck, agentId: string): boolean {
  try {
    agents.requireAgent(agentId);
    return true;
  } catch {
    return false;
  }
}

function view(config: Config, name: string, entry: string): UserView {
  const access = userAccess(config, name);
  return {
    name,
    role: access.role,
    disabled: access.disabled,
    agents: access.role === 'member' ? [...access.agents] : [],
    hasApiKey: parseUserEntry(name, entry).apiKey !== undefined,
  };
}

/** Whether the admin user still has the default password (plain, or hashed from it). */
export async function hasDefaultAdminPassword(config: Config): Promise<boolean> {
  const entry = own(config.security.users, 'admin');
  if (entry === undefined) return false;
  const { password } = parseUserEntry('admin', entry);
  if (!isPasswordHash(password)) return password === DEFAULT_ADMIN_PASSWORD;
  // One scrypt per stored hash, not one per call (GET /setup runs on every visit to /ui/).
  if (checkedHash?.hash !== password)
    checkedHash = { hash: password, isDefault: await verifyPassword(DEFAULT_ADMIN_PASSWORD, password) };
  return checkedHash.isDefault;
}

let checkedHash: { hash: string; isDefault: boolean } | undefined;

export class UsersService {
  constructor(
    private readonly store: ConfigStore,
    private readonly agents: AgentCheck,
  ) {}

  list(): { data: UserView[]; total: number } {
    const config = this.store.current;
    const data = Object.entries(config.security.users).map(([name, entry]) => view(config, name, entry));
    return { data, total: data.length };
  }

  get(name: string): UserView {
    const config = this.store.current;
    const entry = own(config.security.users, name);
    if (entry === undefined) throw notFound(`user "${name}" not found`);
    return view(config, name, entry);
  }

  async create(body: CreateUserBody): Promise<UserView> {
    this.checkAgents(body.agents);
    const hashed = await hashPassword(body.password);
    await this.store.update((editor, current) => {
      if (own(current.security.users, body.name) !== undefined)
        throw conflict(`user "${body.name}" already exists`);
      keepDefaultUsers(editor, current);
      editor.set(['security', 'users', body.name], formatUserEntry({ password: hashed, apiKey: undefined }));
      writeAccess(editor, body.name, body.role, body.disabled, body.agents);
    });
    return this.get(body.name);
  }

  async update(name: string, body: UpdateUserBody): Promise<UserView> {
    if (body.agents) this.checkAgents(body.agents);
    const hashed = body.password === undefined ? undefined : await hashPassword(body.password);
    await this.store.update((editor, current) => {
      const entry = own(current.security.users, name);
      if (entry === undefined) throw notFound(`user "${name}" not found`);
      const access = userAccess(current, name);
      const role = body.role ?? access.role;
      const disabled = body.disabled ?? access.disabled;
      if (access.role === 'admin' && !access.disabled && (role !== 'admin' || disabled))
        requireAnotherAdmin(current, name);
      keepDefaultUsers(editor, current);
      if (hashed !== undefined) {
        const raw = editor.get(['security', 'users', name]);
        const { apiKey } = parseUserEntry(name, typeof raw === 'string' ? raw : entry);
        editor.set(['security', 'users', name], formatUserEntry({ password: hashed, apiKey }));
      }
      writeAccess(editor, name, role, disabled, body.agents ?? access.agents);
    });
    return this.get(name);
  }

  async remove(name: string): Promise<void> {
    await this.store.update((editor, current) => {
      if (own(current.security.users, name) === undefined) throw notFound(`user "${name}" not found`);
      const access = userAccess(current, name);
      if (access.role === 'admin' && !access.disabled) requireAnotherAdmin(current, name);
      keepDefaultUsers(editor, current);
      editor.delete(['security', 'users', name]);
      editor.delete(['security', 'user_access', name]);
    });
  }

  me(principal: Principal | undefined): MeView {
    const requireAuth = this.store.current.security.requireAuth;
    if (principal?.kind !== 'user') return { name: null, role: 'admin', agents: null, requireAuth };
    const member = principal.role === 'member';
    return {
      name: principal.username,
      role: member ? 'member' : 'admin',
      agents: member ? [...(principal.agents ?? [])] : null,
      requireAuth,
    };
  }

  async security(): Promise<SecurityView> {
    const config = this.store.current;
    return {
      requireAuth: config.security.requireAuth,
      defaultAdminPassword: await hasDefaultAdminPassword(config),
    };
  }

  async setRequireAuth(requireAuth: boolean): Promise<SecurityView> {
    if (requireAuth && (await hasDefaultAdminPassword(this.store.current)))
      throw conflict(
        'the admin password is still the default one: change it (PUT /api/v1/users/admin or PUT /api/v1/auth/password) before turning authentication on',
      );
    await this.store.update((editor) => editor.set(['security', 'requireAuth'], requireAuth));
    return this.security();
  }

  private checkAgents(agents: readonly string[]): void {
    const unknown = agents.filter((agentId) => !exists(this.agents, agentId));
    if (unknown.length > 0)
      throw invalid(`agents: unknown agent(s) ${unknown.map((a) => `"${a}"`).join(', ')}`);
  }
}

/** Admins are the users' default; a member entry is written, an admin one only when needed. */
function writeAccess(
  editor: DocumentEditor,
  name: string,
  role: 'admin' | 'member',
  disabled: boolean,
  agents: readonly string[],
): void {
  if (role === 'admin' && !disabled) {
    editor.delete(['security', 'user_access', name]);
    return;
  }
  editor.set(['security', 'user_access', name], {
    role,
    ...(disabled ? { disabled: true } : {}),
    ...(role === 'member' ? { agents: [...agents] } : {}),
  });
}

/** Refuses to leave the server with no enabled admin. */
function requireAnotherAdmin(config: Config, name: string): void {
  const others = Object.keys(config.security.users).filter((other) => {
    if (other === name) return false;
    const access = userAccess(config, other);
    return access.role === 'admin' && !access.disabled;
  });
  if (others.length === 0) throw conflict(`user "${name}" is the last enabled admin`);
}

/**
 * A file without security.users runs with the default `admin` user: write it out before adding,
 * changing or removing one, or the new section would silently drop it.
 */
function keepDefaultUsers(editor: DocumentEditor, current: Config): void {
  if (editor.get(['security', 'users']) === undefined)
    editor.set(['security', 'users'], { ...current.security.users });
}
