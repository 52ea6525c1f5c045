// Channels: every platform with its accounts and each account's connection state (refreshed every
// few seconds), add / edit / delete accounts, and the bindings editor.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { t } from '../../i18n/index.ts';
import type { PageProps } from '../../routes.ts';
import { relativeTime } from '../../types.ts';
import { useAgentIds } from '../../ui/agent-filter.tsx';
import { confirmDelete } from '../../ui/confirm.tsx';
import { Dialog } from '../../ui/dialog.tsx';
import { Icon, IconButton } from '../../ui/icons.tsx';
import { toast } from '../../ui/toast.tsx';
import '../../styles/manage.css';
import { AccountDialog, type AccountTarget } from './account-dialog.tsx';
import { BindingsEditor } from './bindings-editor.tsx';
import { POLICY_LABELS, type AccountView, type PlatformSpec, type PlatformView } from './platform-fields.ts';
import { PairingCard } from './pairing-card.tsx';
import type { ChannelsView, PlatformsView } from '@server/resources/channels/channels.schema.ts';

const REFRESH_MS = 5000;

function StatusLabel({ status }: { status: AccountView['status'] }) {
  return (
    <span
      class="inline-check"
      title={status.error ?? t('ch.since', { time: new Date(status.since).toLocaleString() })}
    >
      <span class={`status-dot ${status.state}`} aria-hidden="true" />
      <span>
        {status.state}
        {status.state !== 'disabled' && <span class="muted"> · {relativeTime(status.since)}</span>}
      </span>
    </span>
  );
}

function AccountRow({
  spec,
  account,
  onEdit,
  onDelete,
}: {
  spec: PlatformSpec;
  account: AccountView;
  onEdit: () => void;
  onDelete: () => void;
}) {
  return (
    <div class="account-row" data-account={`${spec.id}/${account.id}`}>
      <span class="list-item-main">
        <span class="list-item-title">
          {account.name || account.id} {account.name && <span class="muted">({account.id})</span>}
        </span>
        <span class="muted list-item-sub">
          {t('ch.dms')} {t(POLICY_LABELS[account.dmPolicy])}
          {spec.groups ? t('ch.groups', { policy: t(POLICY_LABELS[account.groupPolicy]) }) : ''}
          {account.allowFrom.length > 0 ? t('ch.allowlist', { count: account.allowFrom.length }) : ''}
          {' · '}
          {spec.mainSecret === 'api_key'
            ? t(account.hasSecret ? 'ch.keySet' : 'ch.keyNotSet')
            : t(account.hasSecret ? 'ch.secretSet' : 'ch.secretNotSet')}
        </span>
        {account.status.error && <span class="node-log-error">{account.status.error}</span>}
      </span>
      <StatusLabel status={account.status} />
      <IconButton
        icon="edit"
        label={t('ch.editAccount', { id: account.id })}
        title={t('ch.edit')}
        onClick={onEdit}
      />
      <IconButton
        icon="trash"
        label={t('ch.deleteAccountAria', { id: account.id })}
        title={t('ch.delete')}
        onClick={onDelete}
      />
    </div>
  );
}

export function ChannelsPage(_props: PageProps) {
  const [platforms, setPlatforms] = useState<Record<string, PlatformView> | null>(null);
  // What each platform's accounts take, as the server declares it: loaded once.
  const [specs, setSpecs] = useState<PlatformSpec[] | null>(null);
  const agents = useAgentIds();
  const [target, setTarget] = useState<AccountTarget | null>(null);
  const [newKey, setNewKey] = useState<string | null>(null);

  const reload = useCallback(async (quiet = false) => {
    try {
      setPlatforms(
        (await api<ChannelsView>('/channels', { quiet })).platforms,
      );
    } catch {
      if (!quiet) setPlatforms({});
    }
  }, []);
  useEffect(() => {
    api<PlatformsView>('/channels/platforms').then(
      (answer) => setSpecs(answer.platforms),
      () => setSpecs([]),
    );
  }, []);
  useEffect(() => {
    void reload();
    // Connection states change on their own (connecting, connected, error): poll while the page is open.
    const timer = window.setInterval(() => {
      if (document.visibilityState === 'visible') void reload(true);
    }, REFRESH_MS);
    return () => window.clearInterval(timer);
  }, [reload]);

  const remove = async (spec: PlatformSpec, account: AccountView) => {
    await confirmDelete(
      {
        title: t('ch.delete.title'),
        message: t('ch.delete.message', { platform: spec.label, id: account.id }),
        confirmLabel: t('ch.delete.title'),
      },
      async () => {
        await api(`/channels/${spec.id}/accounts/${encodeURIComponent(account.id)}`, { method: 'DELETE' });
        toast(t('ch.deleted', { id: account.id }), 'success');
        await reload();
      },
    );
  };

  return (
    <div class="page stack">
      <div class="toolbar">
        <h1 class="page-title">{t('ch.title')}</h1>
      </div>
      <p class="muted">{t('ch.intro')}</p>
      <PairingCard />
      {platforms === null || specs === null ? (
        <p class="muted">{t('ch.loading')}</p>
      ) : (
        <div class="card-stack">
          {specs.map((spec) => {
            const platform = platforms[spec.id];
            const accounts = Object.values(platform?.accounts ?? {});
            return (
              <section
                key={spec.id}
                class="card"
                aria-label={t('ch.accounts', { platform: spec.label })}
                data-platform={spec.id}
              >
                <div class="card-head">
                  <h2 class="section-title">{spec.label}</h2>
                  {accounts.length > 0 && !platform?.enabled && (
                    <span class="badge badge-warn">{t('ch.platformDisabled')}</span>
                  )}
                  <span class="spacer" />
                  <button
                    type="button"
                    class="btn"
                    aria-label={t('ch.addAccountAria', { platform: spec.label })}
                    onClick={() => setTarget({ spec, account: null })}
                  >
                    <Icon name="plus" /> {t('ch.addAccount')}
                  </button>
                </div>
                {accounts.length === 0 ? (
                  <p class="muted">{spec.intro}</p>
                ) : (
                  accounts.map((account) => (
                    <AccountRow
                      key={account.id}
                      spec={spec}
                      account={account}
                      onEdit={() => setTarget({ spec, account })}
                      onDelete={() => void remove(spec, account)}
                    />
                  ))
                )}
              </section>
            );
          })}
          <BindingsEditor agents={agents} specs={specs} platforms={platforms} />
        </div>
      )}
      <AccountDialog
        target={target}
        onClose={() => setTarget(null)}
        onSaved={async (created) => {
          setTarget(null);
          if (created?.apiKey) setNewKey(created.apiKey);
          await reload();
        }}
      />
      <Dialog
        title={t('ch.newKey.title')}
        open={newKey !== null}
        onClose={() => setNewKey(null)}
        actions={
          <button type="button" class="btn btn-primary" onClick={() => setNewKey(null)}>
            {t('ch.done')}
          </button>
        }
      >
        <p>
          {t('ch.newKey.text')} <code>Authorization: Bearer …</code>.
        </p>
        <div class="key-box">
          <code aria-label={t('ch.newKey.aria')}>{newKey}</code>
          <button
            type="button"
            class="btn"
            onClick={() => {
              void navigator.clipboard?.writeText(newKey ?? '').then(
                () => toast(t('ch.copied'), 'success'),
                () => undefined,
              );
            }}
          >
            <Icon name="copy" /> {t('common.copy')}
          </button>
        </div>
      </Dialog>
    </div>
  );
}
