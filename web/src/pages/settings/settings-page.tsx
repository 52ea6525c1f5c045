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
import { t } from '../../i18n/index.ts';
import { toast } from '../../ui/toast.tsx';
import '../../styles/manage.css';
import { ProvidersCard } from './providers-card.tsx';
import { SecurityCard } from './security-card.tsx';
import type { ApiKeyAnswer } from '@server/resources/auth/auth.schema.ts';
import type { ConfigView } from '@server/resources/config/config.schema.ts';

/** Sign-in notice for the cards that need a login token (the API key and password routes do). */
function NeedsLogin({ what }: { what: string }) {
  return (
    <p class="muted">
      <a href={href('login')}>{t('settings.signIn')}</a> {t('settings.needsLogin', { what })}
    </p>
  );
}

function ApiKeyCard() {
  const loggedIn = useStore(signedIn);
  const [key, setKey] = useState<string | null>(null);

  const show = async () => {
    try {
      setKey((await api<ApiKeyAnswer>('/auth/api-key')).apiKey);
    } catch {
      // toasted
    }
  };
  const rotate = async () => {
    const confirmed = await confirmAction({
      title: t('settings.rotate.title'),
      message: t('settings.rotate.message'),
      confirmLabel: t('settings.rotate.confirm'),
      danger: true,
    });
    if (!confirmed) return;
    try {
      setKey((await api<ApiKeyAnswer>('/auth/api-key', { method: 'POST' })).apiKey);
      toast(t('settings.rotate.done'), 'success');
    } catch {
      // toasted
    }
  };

  return (
    <section class="card" aria-label={t('settings.apiKey.aria')}>
      <div class="card-head">
        <h2 class="section-title">{t('settings.apiKey.title')}</h2>
      </div>
      <p class="muted">
        {t('settings.apiKey.hint')} <code>Authorization: Bearer …</code>.
      </p>
      {!loggedIn ? (
        <NeedsLogin what={t('settings.apiKey.needs')} />
      ) : (
        <div class="key-box">
          {key === null ? (
            <code>••••••••••••••••</code>
          ) : (
            <code aria-label={t('settings.apiKey.value')}>{key}</code>
          )}
          {key === null ? (
            <button type="button" class="btn" onClick={() => void show()}>
              {t('settings.apiKey.show')}
            </button>
          ) : (
            <>
              <button type="button" class="btn" onClick={() => setKey(null)}>
                {t('settings.apiKey.hide')}
              </button>
              <button
                type="button"
                class="btn"
                onClick={() =>
                  void navigator.clipboard?.writeText(key).then(
                    () => toast(t('settings.copied'), 'success'),
                    () => undefined,
                  )
                }
              >
                <Icon name="copy" /> {t('common.copy')}
              </button>
            </>
          )}
          <button type="button" class="btn btn-danger" onClick={() => void rotate()}>
            {t('settings.rotate.confirm')}
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
      setError(t('settings.password.differ'));
      return;
    }
    try {
      await api('/auth/password', { method: 'PUT', body: { oldPassword, newPassword }, quiet: true });
      toast(t('settings.password.changed'), 'success');
      setOldPassword('');
      setNewPassword('');
      setRepeat('');
    } catch (failure) {
      if (failure instanceof ApiError && failure.status !== 401) setError(failure.message);
    }
  };

  return (
    <section class="card" aria-label={t('settings.password.title')}>
      <div class="card-head">
        <h2 class="section-title">{t('settings.password.title')}</h2>
      </div>
      {!loggedIn ? (
        <NeedsLogin what={t('settings.password.needs')} />
      ) : (
        <form class="stack" onSubmit={(event) => void submit(event)}>
          <FormError error={error} />
          <div class="form-grid">
            <label class="field">
              <span class="field-label">{t('settings.password.current')}</span>
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
              <span class="field-label">{t('settings.password.new')}</span>
              <input
                class="input"
                type="password"
                aria-label={t('settings.password.new')}
                autoComplete="new-password"
                required
                minLength={8}
                value={newPassword}
                onInput={(event) => setNewPassword(event.currentTarget.value)}
              />
              <span class="field-help">{t('settings.password.help')}</span>
            </label>
            <label class="field">
              <span class="field-label">{t('settings.password.repeat')}</span>
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
              {t('settings.password.change')}
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
    <section class="card" aria-label={t('settings.server.title')}>
      <div class="card-head">
        <h2 class="section-title">{t('settings.server.title')}</h2>
      </div>
      {!config ? (
        <p class="muted">{t('settings.loading')}</p>
      ) : (
        <dl class="kv">
          <dt>{t('settings.server.version')}</dt>
          <dd data-info="version">{version || t('settings.server.unknown')}</dd>
          <dt>{t('settings.server.listening')}</dt>
          <dd class="mono" data-info="address">
            {config.server.host}:{config.server.port}
          </dd>
          <dt>{t('settings.server.data')}</dt>
          <dd class="mono" data-info="data-root">
            {config.data.root_dir}
          </dd>
          <dt>{t('settings.server.logs')}</dt>
          <dd class="mono">{config.data.logs_dir}</dd>
          <dt>{t('settings.server.database')}</dt>
          <dd class="mono">{config.data.database_url || t('settings.server.sqlite')}</dd>
          <dt>{t('settings.server.auth')}</dt>
          <dd data-info="auth">
            {config.security.requireAuth ? t('settings.server.authOn') : t('settings.server.authOff')}
          </dd>
          <dt>{t('settings.server.users')}</dt>
          <dd>{Object.keys(config.security.users).join(', ') || t('settings.server.none')}</dd>
        </dl>
      )}
    </section>
  );
}

export function SettingsPage(_props: PageProps) {
  return (
    <div class="page stack">
      <div class="toolbar">
        <h1 class="page-title">{t('settings.title')}</h1>
      </div>
      <ProvidersCard />
      <SecurityCard />
      <ApiKeyCard />
      <PasswordCard />
      <ServerInfoCard />
    </div>
  );
}
