// The requireAuth switch. The server refuses to turn it on while the admin password is the default
// (anyone could sign in with it), so the switch says so and stays off until the password changes.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../../api.ts';
import { FormError } from '../../ui/dialog.tsx';
import { toast } from '../../ui/toast.tsx';

interface Security {
  requireAuth: boolean;
  defaultAdminPassword: boolean;
}

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
      toast(requireAuth ? 'Authentication is now required' : 'Authentication is off', 'success');
    } catch (failure) {
      if (failure instanceof ApiError) setError(failure.message);
      await reload();
    }
  };

  if (!security) return null;
  return (
    <section class="card" aria-label="Security">
      <div class="card-head">
        <h2 class="section-title">Security</h2>
      </div>
      <FormError error={error} />
      <label class="inline-check">
        <input
          type="checkbox"
          role="switch"
          aria-label="Require sign-in"
          checked={security.requireAuth}
          onChange={(event) => void toggle(event.currentTarget.checked)}
        />
        Require sign-in (a login or an API key) for every call
      </label>
      <p class="muted">
        Recommended whenever anyone but you can reach the server: without it, anyone who can open this address
        can use and change everything.
        {security.defaultAdminPassword && (
          <strong data-info="default-password">
            {' '}
            The admin password is still the default one: change it first (Users page or the Password card).
          </strong>
        )}
      </p>
    </section>
  );
}
