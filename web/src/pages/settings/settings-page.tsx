// Settings: model providers, the signed-in user's API key (show, rotate) and password, and what the
// server runs with (version, address, data root, auth mode).
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, request, signedIn } from '../../api.ts';
import { href } from '../../router.ts';
import type { PageProps } from '../../routes.ts';
import { useStore } from '../../store.ts';
import { confirmAction } from '../../ui/confirm.tsx';
import { Icon } from '../../ui/icons.tsx';
import { FormError } from '../../ui/dialog.tsx';
import { toast } from '../../ui/toast.tsx';
import '../../styles/manage.css';
import { ProvidersCard } from './providers-card.tsx';
import { SecurityCard } from './security-card.tsx';

interface ConfigView {
  server: { host: string; port: number };
  data: { root_dir: string; logs_dir: string; database_url?: string };
  models: { default_provider: string };
  security: { requireAuth: boolean; users: Record<string, boolean> };
}

/** Sign-in notice for the cards that need a login token (the API key and password routes do). */
function NeedsLogin({ what }: { what: string }) {
  return (
    <p class="muted">
      <a href={href('login')}>Sign in</a> to {what}: this needs a login, even while the server does not
      require one.
    </p>
  );
}

function ApiKeyCard() {
  const loggedIn = useStore(signedIn);
  const [key, setKey] = useState<string | null>(null);

  const show = async () => {
    try {
      setKey((await api<{ apiKey: string }>('/auth/api-key')).apiKey);
    } catch {
      // toasted
    }
  };
  const rotate = async () => {
    const confirmed = await confirmAction({
      title: 'Rotate API key',
      message:
        'Make a new API key? The current one stops working at once for every script and client using it.',
      confirmLabel: 'Rotate key',
      danger: true,
    });
    if (!confirmed) return;
    try {
      setKey((await api<{ apiKey: string }>('/auth/api-key', { method: 'POST' })).apiKey);
      toast('A new API key was made; the old one no longer works', 'success');
    } catch {
      // toasted
    }
  };

  return (
    <section class="card" aria-label="API key">
      <div class="card-head">
        <h2 class="section-title">Your API key</h2>
      </div>
      <p class="muted">
        For scripts and the command line: send it as <code>Authorization: Bearer …</code>.
      </p>
      {!loggedIn ? (
        <NeedsLogin what="see or rotate your API key" />
      ) : (
        <div class="key-box">
          {key === null ? <code>••••••••••••••••</code> : <code aria-label="API key value">{key}</code>}
          {key === null ? (
            <button type="button" class="btn" onClick={() => void show()}>
              Show key
            </button>
          ) : (
            <>
              <button type="button" class="btn" onClick={() => setKey(null)}>
                Hide
              </button>
              <button
                type="button"
                class="btn"
                onClick={() =>
                  void navigator.clipboard?.writeText(key).then(
                    () => toast('Copied', 'success'),
                    () => undefined,
                  )
                }
              >
                <Icon name="copy" /> Copy
              </button>
            </>
          )}
          <button type="button" class="btn btn-danger" onClick={() => void rotate()}>
            Rotate key
          </button>
        </div>
      )}
    </section>
  );
}

function PasswordCard() {
  const loggedIn = useStore(signedIn);
  const [oldPassword, setOldPassword] = useState('');
  const [newPassword, setNewPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [error, setError] = useState('');

  const submit = async (event: Event) => {
    event.preventDefault();
    setError('');
    if (newPassword !== repeat) {
      setError('The two new passwords differ.');
      return;
    }
    try {
      await api('/auth/password', { method: 'PUT', body: { oldPassword, newPassword }, quiet: true });
      toast('Password changed', 'success');
      setOldPassword('');
      setNewPassword('');
      setRepeat('');
    } catch (failure) {
      if (failure instanceof ApiError && failure.status !== 401) setError(failure.message);
    }
  };

  return (
    <section class="card" aria-label="Password">
      <div class="card-head">
        <h2 class="section-title">Password</h2>
      </div>
      {!loggedIn ? (
        <NeedsLogin what="change your password" />
      ) : (
        <form class="stack" onSubmit={(event) => void submit(event)}>
          <FormError error={error} />
          <div class="form-grid">
            <label class="field">
              <span class="field-label">Current password</span>
              <input
                class="input"
                type="password"
                autoComplete="current-password"
                required
                value={oldPassword}
                onInput={(event) => setOldPassword(event.currentTarget.value)}
              />
            </label>
            <label class="field">
              <span class="field-label">New password</span>
              <input
                class="input"
                type="password"
                aria-label="New password"
                autoComplete="new-password"
                required
                minLength={8}
                value={newPassword}
                onInput={(event) => setNewPassword(event.currentTarget.value)}
              />
              <span class="field-help">At least 8 characters.</span>
            </label>
            <label class="field">
              <span class="field-label">Repeat the new password</span>
              <input
                class="input"
                type="password"
                autoComplete="new-password"
                required
                value={repeat}
                onInput={(event) => setRepeat(event.currentTarget.value)}
              />
            </label>
          </div>
          <div class="toolbar">
            <button type="submit" class="btn btn-primary">
              Change password
            </button>
          </div>
        </form>
      )}
    </section>
  );
}

function ServerInfoCard() {
  const [config, setConfig] = useState<ConfigView | null>(null);
  const [version, setVersion] = useState('');
  useEffect(() => {
    api<ConfigView>('/config').then(setConfig, () => undefined);
    // The version is in the OpenAPI document's info (as `agent-service status` reads it).
    request('/openapi.json', { quiet: true })
      .then((response) => response.json() as Promise<{ info?: { version?: string } }>)
      .then(
        (document) => setVersion(document.info?.version ?? ''),
        () => undefined,
      );
  }, []);
  return (
    <section class="card" aria-label="Server">
      <div class="card-head">
        <h2 class="section-title">Server</h2>
      </div>
      {!config ? (
        <p class="muted">Loading…</p>
      ) : (
        <dl class="kv">
          <dt>Version</dt>
          <dd data-info="version">{version || 'unknown'}</dd>
          <dt>Listening on</dt>
          <dd class="mono" data-info="address">
            {config.server.host}:{config.server.port}
          </dd>
          <dt>Data folder</dt>
          <dd class="mono" data-info="data-root">
            {config.data.root_dir}
          </dd>
          <dt>Logs folder</dt>
          <dd class="mono">{config.data.logs_dir}</dd>
          <dt>Database</dt>
          <dd class="mono">{config.data.database_url || 'embedded SQLite (in the data folder)'}</dd>
          <dt>Authentication</dt>
          <dd data-info="auth">
            {config.security.requireAuth
              ? 'required: every call needs a login or an API key'
              : 'off: anyone who can reach the server may use it (it listens on loopback by default)'}
          </dd>
          <dt>Users</dt>
          <dd>{Object.keys(config.security.users).join(', ') || 'none'}</dd>
        </dl>
      )}
    </section>
  );
}

export function SettingsPage(_props: PageProps) {
  return (
    <div class="page stack">
      <div class="toolbar">
        <h1 class="page-title">Settings</h1>
      </div>
      <ProvidersCard />
      <SecurityCard />
      <ApiKeyCard />
      <PasswordCard />
      <ServerInfoCard />
    </div>
  );
}
