// Users, tokens and keys. JWTs carry the user's password version (an HMAC under the server secret)
// so changing a password voids every token issued before it; API keys are compared by SHA-256
// digest in constant time. Every login runs exactly one scrypt, whether the user exists, has a
// hashed password or a plain-text one from the config file, so timing tells nothing.
import { timingSafeEqual } from 'node:crypto';
import type { ConfigStore } from '../config/config-store.ts';
import type { Config } from '../config/schema.ts';
import { AppError, unauthenticated } from '../core/errors.ts';
import { randomToken } from '../core/ids.ts';
import { own } from '../core/id-schema.ts';
import { digest, hashPassword, isPasswordHash, verifyPassword } from '../core/secrets.ts';
import { userAccess, type UserRole } from './user-access.ts';
import { formatUserEntry, parseUserEntry, passwordVersion, type UserEntry } from './users.ts';

// jose (and the WebCrypto it sets up) loads with the first login or token check, not at start-up.
const loadJose = () => import('jose');

export type Principal =
  | {
      kind: 'user';
      username: string;
      via: 'jwt' | 'api-key';
      /** Absent means admin. A member may use only `agents` and the routes members are allowed. */
      role?: UserRole;
      agents?: readonly string[];
    }
  | { kind: 'account'; platform: 'api'; accountId: string; agents?: readonly string[] };

interface KeyEntry {
  digest: Buffer;
  principal: Principal;
}

const WRONG_CREDENTIALS = 'invalid username or password';
/**
 * Checked when the user is unknown: the hash of a random password nobody knows (made once, kept
 * as a constant so that no scrypt runs at start: its 16 MB would stay in the process's RSS).
 */
const UNKNOWN_USER_HASH = 'scrypt$-H8gzu42NR1TkL28_bjRrg$dGoHrfgjf39uK6clxpeo5F9bZuQu8Vwn3RXfeviVg50';

function durationSeconds(text: string): number {
  const amount = Number(text.slice(0, -1));
  const unit = text.at(-1);
  const factor = unit === 's' ? 1 : unit === 'm' ? 60 : unit === 'h' ? 3600 : 86400;
  return amount * factor;
}

export class AuthService {
  private keys: KeyEntry[] = [];
  private readonly secret: Uint8Array;
  /** Plain-text passwords of the config file, and their scrypt hashes once the first login made them. */
  private plainPasswords: string[] = [];
  private plainHashes: Promise<Map<string, string>> | undefined;

  constructor(
    private readonly store: ConfigStore,
    jwtSecret: string,
    private readonly now: () => number = Date.now,
  ) {
    this.secret = new TextEncoder().encode(jwtSecret);
    this.indexKeys(store.current);
    store.onChange((config) => this.indexKeys(config));
  }

  private indexKeys(config: Config): void {
    const keys: KeyEntry[] = [];
    const plainPasswords: string[] = [];
    for (const [username, value] of Object.entries(config.security.users)) {
      const entry = parseUserEntry(username, value);
      if (!isPasswordHash(entry.password)) plainPasswords.push(entry.password);
      const access = userAccess(config, username);
      if (entry.apiKey && !access.disabled)
        keys.push({ digest: digest(entry.apiKey), principal: userPrincipal(config, username, 'api-key') });
    }
    const api = config.channels.api;
    if (api?.enabled !== false) {
      for (const [accountId, account] of Object.entries(api?.accounts ?? {})) {
        const key = account['api_key'];
        if (account.enabled && typeof key === 'string' && key !== '') {
          keys.push({
            digest: digest(key),
            principal: {
              kind: 'account',
              platform: 'api',
              accountId,
              ...(account.agents ? { agents: account.agents } : {}),
            },
          });
        }
      }
    }
    this.keys = keys;
    this.plainPasswords = plainPasswords;
    this.plainHashes = undefined;
  }

  /**
   * The hashes of every plain-text password, made by the first login after the config (re)loads,
   * whoever it is for: that login is slower for every user alike, and each one after it runs
   * exactly one scrypt.
   */
  private hashesOfPlainPasswords(): Promise<Map<string, string>> {
    if (!this.plainHashes) {
      const passwords = this.plainPasswords;
      this.plainHashes = Promise.all(passwords.map((password) => hashPassword(password))).then(
        (hashes) => new Map(passwords.map((password, index) => [password, hashes[index] as string])),
      );
      this.plainHashes.catch(() => (this.plainHashes = undefined));
    }
    return this.plainHashes;
  }

  private user(username: string): UserEntry | undefined {
    const users = this.store.current.security.users;
    // Own keys only: "__proto__" or "toString" are unknown users, not Object.prototype members.
    const value = own(users, username);
    // A disabled user is unknown: no login, and the tokens issued before stop working at once.
    if (typeof value !== 'string' || userAccess(this.store.current, username).disabled) return undefined;
    return parseUserEntry(username, value);
  }

  /** One scrypt on every path: the stored hash, the hash of a plain password, or a dummy. */
  private async checkPassword(entry: UserEntry | undefined, password: string): Promise<boolean> {
    const plain = await this.hashesOfPlainPasswords();
    let stored: string;
    if (!entry) stored = UNKNOWN_USER_HASH;
    else if (isPasswordHash(entry.password)) stored = entry.password;
    else stored = plain.get(entry.password) ?? (await hashPassword(entry.password));
    const ok = await verifyPassword(password, stored);
    return entry !== undefined && ok;
  }

  async login(username: string, password: string): Promise<{ token: string; expireAt: string }> {
    const entry = this.user(username);
    // An unknown user pays the same scrypt as a wrong password, and gets the same message.
    const ok = await this.checkPassword(entry, password);
    if (!entry || !ok) throw unauthenticated(WRONG_CREDENTIALS);
    const issuedAt = Math.floor(this.now() / 1000);
    const expiresAt = issuedAt + durationSeconds(this.store.current.security.jwtExpire);
    const { SignJWT } = await loadJose();
    const token = await new SignJWT({ pwv: passwordVersion(this.secret, username, entry.password) })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(username)
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAt)
      .sign(this.secret);
    return { token, expireAt: new Date(expiresAt * 1000).toISOString() };
  }

  async verifyToken(token: string): Promise<Principal | undefined> {
    const { jwtVerify } = await loadJose();
    try {
      const { payload } = await jwtVerify(token, this.secret, {
        algorithms: ['HS256'],
        currentDate: new Date(this.now()),
      });
      const entry = payload.sub ? this.user(payload.sub) : undefined;
      if (!entry || payload['pwv'] !== passwordVersion(this.secret, entry.username, entry.password))
        return undefined;
      return userPrincipal(this.store.current, entry.username, 'jwt');
    } catch {
      return undefined;
    }
  }

  /** Resolves a Bearer credential: a JWT, a user's API key, or an api-channel account key. */
  async resolveBearer(credential: string): Promise<Principal | undefined> {
    if (credential.split('.').length === 3) {
      const principal = await this.verifyToken(credential);
      if (principal) return principal;
    }
    const presented = digest(credential);
    let found: Principal | undefined;
    for (const key of this.keys) {
      if (timingSafeEqual(key.digest, presented)) found = key.principal;
    }
    return found;
  }

  async getApiKey(username: string): Promise<string> {
    const entry = this.user(username);
    if (!entry) throw unauthenticated('user no longer exists');
    return entry.apiKey ?? this.regenerateApiKey(username);
  }

  async regenerateApiKey(username: string): Promise<string> {
    const apiKey = `sk-${randomToken(24)}`;
    await this.rewriteUser(username, (entry) => ({ password: entry.password, apiKey }));
    return apiKey;
  }

  async changePassword(username: string, oldPassword: string, newPassword: string): Promise<void> {
    const entry = this.user(username);
    if (!entry || !(await this.checkPassword(entry, oldPassword))) {
      throw unauthenticated('old password is wrong');
    }
    if (newPassword.includes(':')) throw new AppError('invalid', 'newPassword: must not contain ":"');
    const hashed = await hashPassword(newPassword);
    await this.rewriteUser(username, (entry) => ({ password: hashed, apiKey: entry.apiKey }));
  }

  /** Rewrites a user's entry in the configuration file: `change` gets it as written and gives the new one. */
  private async rewriteUser(
    username: string,
    change: (entry: UserEntry) => { password: string; apiKey: string | undefined },
  ): Promise<void> {
    await this.store.update((editor, current) => {
      const value = own(current.security.users, username);
      if (value === undefined) throw unauthenticated('user no longer exists');
      const entry = parseUserEntry(
        username,
        this.rawUserValue(editor.get(['security', 'users', username]), value),
      );
      editor.set(['security', 'users', username], formatUserEntry(change(entry)));
    });
  }

  /** The entry as written in the file (it may hold a ${NAME} reference); falls back to the resolved one. */
  private rawUserValue(raw: unknown, resolved: string): string {
    return typeof raw === 'string' ? raw : resolved;
  }
}

function userPrincipal(config: Config, username: string, via: 'jwt' | 'api-key'): Principal {
  const access = userAccess(config, username);
  if (access.role === 'admin') return { kind: 'user', username, via };
  return { kind: 'user', username, via, role: 'member', agents: access.agents };
}
