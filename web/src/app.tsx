// The shell: navigation from the routes table, the current page, toasts and the shared dialogs.
// The login page replaces the shell while /ui/login is open.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, setToken, signedIn } from './api.ts';
import { LoginPage } from './pages/login.tsx';
import { SetupPage, SKIPPED_KEY } from './pages/setup/setup-page.tsx';
import { href, navigate, useSegments } from './router.ts';
import { LANGS, setLang, t, useLang, type Lang } from './i18n/index.ts';
import { HOME, ROUTES, type RouteEntry } from './routes.ts';
import { useStore } from './store.ts';
import { ConfirmHost } from './ui/confirm.tsx';
import { Icon } from './ui/icons.tsx';
import { theme, toggleTheme } from './ui/theme.ts';
import { ToastHost } from './ui/toast.tsx';
import { useEscape } from './ui/use-escape.ts';
import type { SetupStatus } from '@server/resources/setup/setup.schema.ts';

/** A page's name in the navigation, in the UI's language. */
export function routeLabel(route: RouteEntry): string {
  return t(`nav.${route.path}` as Parameters<typeof t>[0]);
}

function ThemeButton() {
  const current = useStore(theme);
  const next = current === 'dark' ? 'light' : 'dark';
  const label = t('app.theme', { theme: t(next === 'dark' ? 'app.theme.dark' : 'app.theme.light') });
  return (
    <button type="button" class="icon-btn" onClick={toggleTheme} aria-label={label} title={label}>
      <Icon name={current === 'dark' ? 'sun' : 'moon'} />
    </button>
  );
}

/** An address under /ui/ that names no page: said so, with a way back, instead of a silent redirect. */
function NotFoundPage() {
  return (
    <section class="page" aria-labelledby="not-found-title">
      <h1 id="not-found-title">{t('app.notFound')}</h1>
      <p>
        {t('app.notFound.text')} <code>{window.location.pathname}</code>
      </p>
      <p>
        <a href={href(HOME)}>{t('app.notFound.back')}</a>
      </p>
    </section>
  );
}

/** The UI's language, English or 简体中文: the browser's by default, remembered once chosen. */
function LanguageSwitch() {
  const current = useLang();
  return (
    <select
      class="input lang-switch"
      aria-label={t('app.language')}
      title={t('app.language')}
      value={current}
      onChange={(event) => setLang(event.currentTarget.value as Lang)}
    >
      {LANGS.map((entry) => (
        <option key={entry.id} value={entry.id} lang={entry.id === 'zh' ? 'zh-CN' : 'en'}>
          {entry.label}
        </option>
      ))}
    </select>
  );
}

export function App() {
  const language = useLang();
  const segments = useSegments();
  const loggedIn = useStore(signedIn);
  const [menuOpen, setMenuOpen] = useState(false);
  const closeMenu = useCallback(() => setMenuOpen(false), []);
  const [first = '', ...params] = segments;
  const route = ROUTES.find((entry) => entry.path === first);

  useEffect(() => {
    // A first visit to a server with no provider and the default admin password opens the wizard.
    if (first === '' && sessionStorage.getItem(SKIPPED_KEY)) navigate(href(HOME), { replace: true });
    else if (first === '')
      api<SetupStatus>('/setup', { quiet: true }).then(
        (setup) => navigate(href(setup.needed ? 'setup' : HOME), { replace: true }),
        // A 401 has already sent the tab to the login page; anything else opens the home page.
        () => {
          if (window.location.pathname !== href('login')) navigate(href(HOME), { replace: true });
        },
      );
  }, [first]);
  useEffect(() => setMenuOpen(false), [segments.join('/')]);
  useEscape(menuOpen, closeMenu);
  useEffect(() => {
    const label =
      first === 'login'
        ? t('app.title.signIn')
        : first === 'setup'
          ? t('app.title.setup')
          : route
            ? routeLabel(route)
            : first
              ? t('app.title.notFound')
              : undefined;
    document.title = label ? `${label} · Agent Service` : 'Agent Service';
  }, [first, route, language]);

  if (first === 'setup') {
    return (
      <>
        <SetupPage />
        <ToastHost />
      </>
    );
  }
  if (first === 'login') {
    return (
      <>
        <LoginPage />
        <ToastHost />
      </>
    );
  }
  const Page = route?.page;
  return (
    <div class={menuOpen ? 'shell menu-open' : 'shell'}>
      <a class="skip-link" href="#main">
        {t('app.skip')}
      </a>
      <header class="topbar">
        <button
          type="button"
          class="icon-btn nav-toggle"
          aria-label={t('app.menu')}
          aria-expanded={menuOpen}
          aria-controls="nav"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          <Icon name="menu" />
        </button>
        <a class="brand" href={href(HOME)}>
          {t('app.brand')}
        </a>
        <span class="spacer" />
        <LanguageSwitch />
        <ThemeButton />
        {loggedIn && (
          <button
            type="button"
            class="icon-btn"
            aria-label={t('app.signOut')}
            title={t('app.signOut')}
            onClick={() => {
              setToken(null);
              navigate(href('login'));
            }}
          >
            <Icon name="logout" />
          </button>
        )}
      </header>
      <nav id="nav" class="nav" aria-label={t('app.main')}>
        {ROUTES.map((entry) => (
          <a
            key={entry.path}
            class={entry === route ? 'nav-link active' : 'nav-link'}
            href={href(entry.path)}
            aria-current={entry === route ? 'page' : undefined}
          >
            <Icon name={entry.icon} />
            <span>{routeLabel(entry)}</span>
          </a>
        ))}
      </nav>
      <div class="nav-backdrop" onClick={() => setMenuOpen(false)} />
      <main id="main" class="main" tabIndex={-1}>
        {Page ? <Page params={params} /> : first !== '' && <NotFoundPage />}
      </main>
      <ToastHost />
      <ConfirmHost />
    </div>
  );
}
