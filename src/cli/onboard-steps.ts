// The steps of `agent-service onboard` that talk to the outside: prove a model provider with a live
// completion (shared with the web UI's first-run wizard), check that a Telegram bot token connects, and the health check at the end. Each
// returns what happened; none writes the config file (the command saves only what was proven).
import { errorMessage } from '../core/errors.ts';
import type { Proof } from '../resources/setup/prove-provider.ts';
export { proveProvider, type ProviderDraft } from '../resources/setup/prove-provider.ts';
import { scrubSecret } from '../model-providers/upstream-failure.ts';

/** Whether a Telegram bot token is accepted (a getUpdates that waits for nothing and confirms nothing). */
export async function checkTelegram(token: string, apiBase = 'https://api.telegram.org'): Promise<Proof> {
  const started = performance.now();
  try {
    const response = await fetch(`${apiBase.replace(/\/$/, '')}/bot${token}/getUpdates`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ timeout: 0, limit: 1 }),
      signal: AbortSignal.timeout(15_000),
    });
    const body = (await response.json().catch(() => ({}))) as { ok?: boolean; description?: string };
    if (!response.ok || body.ok !== true)
      return {
        ok: false,
        error: `Telegram refused the token: ${body.description ?? `HTTP ${response.status}`}`,
      };
    return { ok: true, reply: 'connected', latencyMs: Math.round(performance.now() - started) };
  } catch (error) {
    return { ok: false, error: scrubSecret(errorMessage(error), token) };
  }
}

/** GET /health of a running server: undefined when it answers healthy, else why not. */
export async function healthProblem(url: string): Promise<string | undefined> {
  try {
    const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(5000) });
    return response.ok ? undefined : `/health answered HTTP ${response.status}`;
  } catch (error) {
    return `not reachable (${errorMessage(error)})`;
  }
}
