// The first-run wizard, opened from /ui/ while no model provider is configured and the admin
// password is the default (the same steps as `agent-service onboard`): a model provider proven by
// a live completion before it is saved, the admin password, authentication (recommended), an
// optional Telegram bot checked to connect, and a health check with the address of the UI.
import { useState } from 'preact/hooks';
import { api, ApiError, setToken } from '../../api.ts';
import { href, navigate } from '../../router.ts';
import { t, useLang } from '../../i18n/index.ts';
import { FormError } from '../../ui/dialog.tsx';
import '../../styles/manage.css';
import type { LoginAnswer } from '@server/resources/auth/auth.schema.ts';
import type { SetupProviderAnswer } from '@server/resources/setup/setup.schema.ts';

/** Set when the user skipped the wizard: /ui/ then opens the chat in this tab. */
export const SKIPPED_KEY = 'agent-service.setup-skipped';

type Step = 'provider' | 'password' | 'auth' | 'telegram' | 'done';

function field(
  label: string,
  value: string,
  set: (value: string) => void,
  type: 'text' | 'password' = 'text',
  placeholder = '',
) {
  return (
    <label class="field">
      <span class="field-label">{label}</span>
      {type === 'password' ? (
        <input
          class="input"
          type="password"
          value={value}
          onInput={(event) => set(event.currentTarget.value)}
        />
      ) : (
        <input
          class="input"
          type="text"
          value={value}
          placeholder={placeholder}
          onInput={(event) => set(event.currentTarget.value)}
        />
      )}
    </label>
  );
}

export function SetupPage() {
  useLang();
  const [step, setStep] = useState<Step>('provider');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const [baseUrl, setBaseUrl] = useState('https://api.openai.com/v1');
  const [model, setModel] = useState('gpt-4o-mini');
  const [apiKey, setApiKey] = useState('');
  const [proof, setProof] = useState('');
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [requireAuth, setRequireAuth] = useState(true);
  const [tgToken, setTgToken] = useState('');
  const [tgBase, setTgBase] = useState('');
  const [health, setHealth] = useState('');

  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    setError('');
    try {
      await work();
    } catch (failure) {
      setError(failure instanceof ApiError ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  };

  const saveProvider = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      const answer = await api<SetupProviderAnswer>('/setup/provider', {
        method: 'POST',
        body: {
          id: 'default',
          base_url: baseUrl.trim(),
          model: model.trim(),
          ...(apiKey ? { api_key: apiKey } : {}),
        },
        quiet: true,
      });
      setProof(t('setup.proof', { ms: answer.latencyMs, reply: answer.reply }));
      setStep('password');
    });
  };

  const savePassword = (event: Event) => {
    event.preventDefault();
    if (password !== repeat) {
      setError(t('setup.passwordsDiffer'));
      return;
    }
    void run(async () => {
      await api('/users/admin', { method: 'PUT', body: { password }, quiet: true });
      setStep('auth');
    });
  };

  const saveAuth = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      if (requireAuth) {
        const { token } = await api<LoginAnswer>('/auth/login', {
          method: 'POST',
          body: { username: 'admin', password },
          quiet: true,
        });
        setToken(token);
        await api('/security', { method: 'PUT', body: { requireAuth: true }, quiet: true });
      }
      setStep('telegram');
    });
  };

  const finish = async () => {
    // /health is at the root, beside /api/v1.
    const response = await fetch('/health').catch(() => undefined);
    setHealth(response?.ok ? t('setup.healthy') : t('setup.notAnswering'));
    setStep('done');
  };

  const saveTelegram = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      // The server checks the token with the Bot API before it saves the account.
      await api('/setup/telegram', {
        method: 'POST',
        body: { token: tgToken.trim(), ...(tgBase.trim() ? { api_base: tgBase.trim() } : {}) },
        quiet: true,
      });
      await finish();
    });
  };

  return (
    <main class="login-page">
      <section class="card login-card stack" aria-label={t('setup.aria')}>
        <h1>{t('setup.welcome')}</h1>
        <FormError error={error} />
        {step === 'provider' && (
          <form class="stack" onSubmit={saveProvider} aria-label={t('setup.provider.aria')}>
            <p class="muted">{t('setup.provider.text')}</p>
            {field(t('setup.baseUrl'), baseUrl, setBaseUrl)}
            {field(t('setup.model'), model, setModel)}
            {field(t('setup.apiKey'), apiKey, setApiKey, 'password')}
            <div class="toolbar">
              <button type="submit" class="btn btn-primary" disabled={busy}>
                {busy ? t('setup.trying') : t('setup.testSave')}
              </button>
              <button
                type="button"
                class="btn"
                onClick={() => {
                  // Not asked again in this tab; the demo model answers until a provider is added.
                  sessionStorage.setItem(SKIPPED_KEY, '1');
                  navigate(href('chat'));
                }}
              >
                {t('setup.skipNow')}
              </button>
            </div>
          </form>
        )}
        {step === 'password' && (
          <form class="stack" onSubmit={savePassword} aria-label={t('setup.password.aria')}>
            <p class="muted" data-info="proof">
              {proof}
            </p>
            <p class="muted">{t('setup.password.text')}</p>
            {field(t('setup.newAdminPassword'), password, setPassword, 'password')}
            {field(t('setup.repeatPassword'), repeat, setRepeat, 'password')}
            <button type="submit" class="btn btn-primary" disabled={busy}>
              {t('setup.setPassword')}
            </button>
          </form>
        )}
        {step === 'auth' && (
          <form class="stack" onSubmit={saveAuth} aria-label={t('setup.auth.aria')}>
            <p class="muted">{t('setup.auth.text')}</p>
            <label class="inline-check">
              <input
                type="checkbox"
                checked={requireAuth}
                onChange={(event) => setRequireAuth(event.currentTarget.checked)}
              />
              {t('setup.requireSignIn')}
            </label>
            <button type="submit" class="btn btn-primary" disabled={busy}>
              {t('setup.continue')}
            </button>
          </form>
        )}
        {step === 'telegram' && (
          <form class="stack" onSubmit={saveTelegram} aria-label={t('setup.telegram.aria')}>
            <p class="muted">{t('setup.telegram.text')}</p>
            {field(t('setup.tgToken'), tgToken, setTgToken, 'password')}
            {field(t('setup.tgBase'), tgBase, setTgBase, 'text', 'https://api.telegram.org')}
            <div class="toolbar">
              <button type="submit" class="btn btn-primary" disabled={busy || tgToken.trim() === ''}>
                {busy ? t('setup.connecting') : t('setup.connectBot')}
              </button>
              <button type="button" class="btn" disabled={busy} onClick={() => void finish()}>
                {t('setup.skip')}
              </button>
            </div>
          </form>
        )}
        {step === 'done' && (
          <div class="stack" aria-label={t('setup.done.aria')}>
            <p>
              {t('setup.server')} <strong data-info="health">{health}</strong>
            </p>
            <p>
              {t('setup.openAt')} <code data-info="address">{`${window.location.origin}/ui/`}</code>
            </p>
            <button type="button" class="btn btn-primary" onClick={() => navigate(href('chat'))}>
              {t('setup.startChatting')}
            </button>
          </div>
        )}
      </section>
    </main>
  );
}
