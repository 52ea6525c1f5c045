// The steps of `agent-service onboard` that talk to the outside: prove a model provider with a live
// completion (shared with the web UI's first-run wizard), check that a Telegram bot token connects, and the health check at the end. Each
// returns what happened; none writes the config file (the command saves only what was proven).
import { errorMessage } from '../core/errors.ts';
export { checkTelegram, proveProvider, type ProviderDraft } from '../resources/setup/prove-provider.ts';
import { scrubSecret } from '../model-providers/upstream-failure.ts';

/** GET /health of a running server: undefined when it answers healthy, else why not. */
export async function healthProblem(url: string): Promise<string | undefined> {
  try {
    const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(5000) });
    return response.ok ? undefined : `/health answered HTTP ${response.status}`;
  } catch (error) {
    return `not reachable (${errorMessage(error)})`;
  }
}
