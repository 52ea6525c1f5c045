// What a user does with their own credentials through the API: log in (limited per client), read
// or regenerate their API key, change their password. Users, tokens and keys are src/auth's.
import type { AuthService, Principal } from '../../auth/auth-service.ts';
import { AppError } from '../../core/errors.ts';
import type { RateLimiter } from '../../http/rate-limit.ts';
import type { LoginBody, PasswordBody } from './auth.schema.ts';

/** A login refused by the per-client limit; the route answers it with Retry-After. */
export class LoginRateLimited extends AppError {
  constructor(readonly retryAfterSeconds: number) {
    super('rate-limited', `too many login attempts; try again in ${retryAfterSeconds} s`);
  }
}

/** The user a login token (or a user's API key) names; anything else is a 401. */
function username(principal: Principal | undefined): string {
  if (principal?.kind !== 'user' || !principal.username)
    throw new AppError('unauthenticated', 'a login token is required');
  return principal.username;
}

export class UserAuthService {
  constructor(
    private readonly auth: AuthService,
    /** Login attempts per client (security.loginRateLimit a minute). */
    private readonly logins: RateLimiter,
  ) {}

  /** `client` is the caller's address, the key of the login limit. */
  login(client: string, body: LoginBody): Promise<{ token: string; expireAt: string }> {
    const wait = this.logins.hit(client);
    if (wait > 0) throw new LoginRateLimited(wait);
    return this.auth.login(body.username, body.password);
  }

  async apiKey(principal: Principal | undefined): Promise<{ apiKey: string }> {
    return { apiKey: await this.auth.getApiKey(username(principal)) };
  }

  async regenerateApiKey(principal: Principal | undefined): Promise<{ apiKey: string }> {
    return { apiKey: await this.auth.regenerateApiKey(username(principal)) };
  }

  async changePassword(principal: Principal | undefined, body: PasswordBody) {
    await this.auth.changePassword(username(principal), body.oldPassword, body.newPassword);
    return { success: true, message: 'password changed; log in again' };
  }
}
