// The login page, shown when the server answers 401 (auth is on and this tab has no valid token).
import { useState } from 'preact/hooks';
import { afterLogin, api, ApiError, setToken } from '../api.ts';
import { t, useLang } from '../i18n/index.ts';
import { FormError } from '../ui/dialog.tsx';
import type { LoginAnswer } from '@server/resources/auth/auth.schema.ts';

export function LoginPage() {
  useLang();
  const [username, setUsername] = useState('admin');
  const [password, setPassword] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError('');
    try {
      const answer = await api<LoginAnswer>('/auth/login', {
        method: 'POST',
        body: { username, password },
        quiet: true,
      });
      setToken(answer.token);
      afterLogin();
    } catch (failure) {
      setError(failure instanceof ApiError ? failure.message : t('login.failed'));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="login-page">
      <form class="card login-card" onSubmit={submit} aria-labelledby="login-title">
        <h1 id="login-title">{t('login.title')}</h1>
        <p class="muted">{t('login.text')}</p>
        <label class="field">
          <span class="field-label">{t('login.user')}</span>
          <input
            class="input"
            name="username"
            autoComplete="username"
            required
            value={username}
            onInput={(event) => setUsername(event.currentTarget.value)}
          />
        </label>
        <label class="field">
          <span class="field-label">{t('login.password')}</span>
          <input
            class="input"
            name="password"
            type="password"
            autoComplete="current-password"
            required
            autoFocus
            value={password}
            onInput={(event) => setPassword(event.currentTarget.value)}
          />
        </label>
        <FormError error={error} />
        <button type="submit" class="btn btn-primary btn-block" disabled={busy}>
          {busy ? t('login.busy') : t('login.submit')}
        </button>
      </form>
    </main>
  );
}
