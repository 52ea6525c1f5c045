// The requireAuth switch. The server refuses to turn it on while the admin password is the default
// (anyone could sign in with it), so the switch says so and stays off until the password changes.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../../api.ts';
import { t } from '../../i18n/index.ts';
import { FormError } from '../../ui/dialog.tsx';
import { toast } from '../../ui/toast.tsx';
import type { SecurityView } from '@server/resources/users/users.schema.ts';

type Security = SecurityView;

export function SecurityCard() {
  const [security, setSecurity] = useState<Security | null>(null);
  const [error, setError] = useState('');
  const reload = useCallback(async () => {
    try {
      setSecurity(await api<Security>('/security', { quiet: true }));
    } catch {
      setSecurity(null);
    }
  }, []);
  useEffect(() => {
    void reload();
  }, [reload]);

  const toggle = async (requireAuth: boolean) => {
    setError('');
    try {
      setSecurity(await api<Security>('/security', { method: 'PUT', body: { requireAuth }, quiet: true }));
      toast(requireAuth ? t('security.on') : t('security.off'), 'success');
    } catch (failure) {
      if (failure instanceof ApiError) setError(failure.message);
      await reload();
    }
  };

  if (!security) return null;
  return (
    <section class="card" aria-label={t('security.aria')}>
      <div class="card-head">
        <h2 class="section-title">{t('security.aria')}</h2>
      </div>
      <FormError error={error} />
      <label class="inline-check">
        <input
          type="checkbox"
          role="switch"
          aria-label={t('security.requireSignIn')}
          checked={security.requireAuth}
          onChange={(event) => void toggle(event.currentTarget.checked)}
        />
        {t('security.label')}
      </label>
      <p class="muted">
        {t('security.hint')}
        {security.defaultAdminPassword && (
          <strong data-info="default-password"> {t('security.defaultPassword')}</strong>
        )}
      </p>
    </section>
  );
}
