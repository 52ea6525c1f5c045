// Roles and state of users: `security.user_access.<name>` ({role, disabled, agents}) beside the
// `security.users.<name>` password entry. A user with no access entry is an enabled admin, so
// config files written before roles existed keep working unchanged.
import type { Config } from '../config/schema.ts';
import { own } from '../core/id-schema.ts';

export type UserRole = 'admin' | 'member';

export interface UserAccess {
  role: UserRole;
  disabled: boolean;
  agents: readonly string[];
}

const ADMIN: UserAccess = { role: 'admin', disabled: false, agents: [] };

export function userAccess(config: Config, username: string): UserAccess {
  return own(config.security.user_access, username) ?? ADMIN;
}
