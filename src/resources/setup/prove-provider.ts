// Proves a model provider before it is saved: one short live completion, without retries or
// failover. Used by `agent-service onboard` and the web UI's first-run wizard (POST /setup/provider).
import { errorMessage } from '../../core/errors.ts';
import { createOpenAICompatibleProvider } from '../../model-providers/openai-compatible.ts';
import { scrubSecrets } from '../../core/scrub-secrets.ts';

export interface ProviderDraft {
  id: string;
  baseUrl: string;
  model: string;
  apiKey?: string | undefined;
}

export type Proof = { ok: true; reply: string; latencyMs: number } | { ok: false; error: string };

const PROOF_TIMEOUT_MS = 30_000;

/** One short live completion through the provider, without retries; the key is masked in errors. */
export async function proveProvider(draft: ProviderDraft): Promise<Proof> {
  const provider = createOpenAICompatibleProvider({
    id: draft.id,
    baseUrl: draft.baseUrl,
    ...(draft.apiKey ? { apiKey: draft.apiKey } : {}),
    model: draft.model,
    timeoutMs: PROOF_TIMEOUT_MS,
    maxRetries: 0,
  });
  const started = performance.now();
  let reply = '';
  try {
    const events = provider.stream({
      model: draft.model,
      messages: [{ role: 'user', content: 'Say hello in five words or fewer.' }],
      params: { maxTokens: 32 },
      signal: AbortSignal.timeout(PROOF_TIMEOUT_MS + 1000),
    });
    for await (const event of events) {
      if (event.type === 'text-delta') reply += event.text;
      if (event.type === 'finish') break;
    }
  } catch (error) {
    return { ok: false, error: scrubSecrets(errorMessage(error), [draft.apiKey]) };
  }
  if (reply.trim() === '') return { ok: false, error: 'the provider answered with no text' };
  return { ok: true, reply: reply.trim(), latencyMs: Math.round(performance.now() - started) };
}

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
    return { ok: false, error: scrubSecrets(errorMessage(error), [token]) };
  }
}
