// DM pairing requests (accounts with dm_policy pairing): each unknown sender got a code from the
// bot; approving it adds the sender to the account's allowlist, rejecting drops the request.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { t } from '../../i18n/index.ts';
import { toast } from '../../ui/toast.tsx';
import type { PairingView } from '@server/resources/pairing/pairing.schema.ts';
import type { PairingDecision, PairingList } from '@server/resources/pairing/pairing.schema.ts';

type PairingRequest = PairingView;

export function PairingCard() {
  const [requests, setRequests] = useState<PairingRequest[] | null>(null);
  const reload = useCallback(async () => {
    try {
      setRequests((await api<PairingList>('/pairing', { quiet: true })).data);
    } catch {
      setRequests([]);
    }
  }, []);
  useEffect(() => {
    void reload();
    const timer = window.setInterval(() => void reload(), 5000);
    return () => window.clearInterval(timer);
  }, [reload]);

  const decide = async (request: PairingRequest, verb: 'approve' | 'reject') => {
    try {
      const answer = await api<PairingDecision>(`/pairing/${encodeURIComponent(request.code)}/${verb}`, {
        method: 'POST',
      });
      toast(answer.message, 'success');
    } catch {
      // toasted
    }
    await reload();
  };

  if (!requests || requests.length === 0) return null;
  return (
    <section class="card" aria-label={t('pairing.title')}>
      <div class="card-head">
        <h2 class="section-title">{t('pairing.title')}</h2>
      </div>
      <p class="muted">{t('pairing.text')}</p>
      <div class="list">
        {requests.map((request) => (
          <div class="account-row" key={request.code} data-pairing={request.code}>
            <span class="list-item-main">
              <span class="list-item-title mono">{request.code}</span>
              <span class="muted list-item-sub">
                {request.platform}/{request.accountId} · {t('pairing.sender', { id: request.senderId })} ·{' '}
                {t('pairing.expires')} {new Date(request.expiresAt).toLocaleTimeString()}
              </span>
            </span>
            <button type="button" class="btn btn-primary" onClick={() => void decide(request, 'approve')}>
              {t('pairing.approve')}
            </button>
            <button type="button" class="btn btn-danger" onClick={() => void decide(request, 'reject')}>
              {t('pairing.reject')}
            </button>
          </div>
        ))}
      </div>
    </section>
  );
}
