// The steps of `agent-service onboard` that talk to the outside: prove a model provider with a live
// completion and check a Telegram bot token (both shared with the web UI's first-run wizard), and
// the health check at the end. None writes the config file (the command saves what was proven).
import { errorMessage } from '../core/errors.ts';
export { checkTelegram, proveProvider, type ProviderDraft } from '../resources/setup/prove-provider.ts';

/** GET /health of a running server: undefined when it answers healthy, else why not. */
export async function healthProblem(url: string): Promise<string | undefined> {
  try {
    const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(5000) });
    return response.ok ? undefined : `/health answered HTTP ${response.status}`;
  } catch (error) {
    return `not reachable (${errorMessage(error)})`;
  }
}
