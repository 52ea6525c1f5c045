// Users, tokens and keys. JWTs carry the user's password version so changing a password voids every
// token issued before it; API keys are compared by SHA-256 digest in constant time.
import { timingSafeEqual } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import type { ConfigStore } from '../../config/config-store.ts';
import type { Config } from '../../config/schema.ts';
import { AppError, unauthenticated } from '../../core/errors.ts';
import { randomToken } from '../../core/ids.ts';
import { digest, hashPassword, verifyPassword } from '../../core/secrets.ts';
import { formatUserEntry, parseUserEntry, passwordVersion, type UserEntry } from './users.ts';

export type Principal =
  | { kind: 'user'; username: string; via: 'jwt' | 'api-key' }
  | { kind: 'account'; platform: 'api'; accountId: string };

interface KeyEntry {
  digest: Buffer;
  principal: Principal;
}

const WRONG_CREDENTIALS = 'invalid username or password';

function durationSeconds(text: string): number {
  const amount = Number(text.slice(0, -1));
  const unit = text.at(-1);
  const factor = unit === 's' ? 1 : unit === 'm' ? 60 : unit === 'h' ? 3600 : 86400;
  return amount * factor;
}

export class AuthService {
  private keys: KeyEntry[] = [];
  private readonly secret: Uint8Array;

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
    for (const [username, value] of Object.entries(config.security.users)) {
      const entry = parseUserEntry(username, value);
      if (entry.apiKey)
        keys.push({ digest: digest(entry.apiKey), principal: { kind: 'user', username, via: 'api-key' } });
    }
    const api = config.channels.api;
    if (api?.enabled !== false) {
      for (const [accountId, account] of Object.entries(api?.accounts ?? {})) {
        if (account.enabled && account.api_key) {
          keys.push({
            digest: digest(account.api_key),
            principal: { kind: 'account', platform: 'api', accountId },
          });
        }
      }
    }
    this.keys = keys;
  }

  private user(username: string): UserEntry | undefined {
    const value = this.store.current.security.users[username];
    return value === undefined ? undefined : parseUserEntry(username, value);
  }

  async login(username: string, password: string): Promise<{ token: string; expireAt: string }> {
    const entry = this.user(username);
    // Verify against a dummy when the user is unknown, so both cases take the same path and message.
    const ok = await verifyPassword(password, entry?.password ?? 'scrypt$AAAAAAAAAAAAAAAAAAAAAA$AAAA');
    if (!entry || !ok) throw unauthenticated(WRONG_CREDENTIALS);
    const issuedAt = Math.floor(this.now() / 1000);
    const expiresAt = issuedAt + durationSeconds(this.store.current.security.jwtExpire);
    const token = await new SignJWT({ pwv: passwordVersion(entry.password) })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(username)
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAt)
      .sign(this.secret);
    return { token, expireAt: new Date(expiresAt * 1000).toISOString() };
  }

  async verifyToken(token: string): Promise<Principal | undefined> {
    try {
      const { payload } = await jwtVerify(token, this.secret, {
        algorithms: ['HS256'],
        currentDate: new Date(this.now()),
      });
      const entry = payload.sub ? this.user(payload.sub) : undefined;
      if (!entry || payload['pwv'] !== passwordVersion(entry.password)) return undefined;
      return { kind: 'user', username: entry.username, via: 'jwt' };
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
    await this.store.update((editor, current) => {
      const value = current.security.users[username];
      if (value === undefined) throw unauthenticated('user no longer exists');
      const entry = parseUserEntry(
        username,
        this.rawUserValue(editor.get(['security', 'users', username]), value),
      );
      editor.set(['security', 'users', username], formatUserEntry({ password: entry.password, apiKey }));
    });
    return apiKey;
  }

  async changePassword(username: string, oldPassword: string, newPassword: string): Promise<void> {
    const entry = this.user(username);
    if (!entry || !(await verifyPassword(oldPassword, entry.password))) {
      throw unauthenticated('old password is wrong');
    }
    if (newPassword.includes(':')) throw new AppError('invalid', 'newPassword: must not contain ":"');
    const hashed = await hashPassword(newPassword);
    await this.store.update((editor, current) => {
      const value = current.security.users[username];
      if (value === undefined) throw unauthenticated('user no longer exists');
      const raw = parseUserEntry(
        username,
        this.rawUserValue(editor.get(['security', 'users', username]), value),
      );
      editor.set(['security', 'users', username], formatUserEntry({ password: hashed, apiKey: raw.apiKey }));
    });
  }

  /** The entry as written in the file (it may hold a ${NAME} reference); falls back to the resolved one. */
  private rawUserValue(raw: unknown, resolved: string): string {
    return typeof raw === 'string' ? raw : resolved;
  }
}
