// DM pairing requests (accounts with dm_policy pairing): each unknown sender got a code from the
// bot; approving it adds the sender to the account's allowlist, rejecting drops the request.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { toast } from '../../ui/toast.tsx';

interface PairingRequest {
  code: string;
  platform: string;
  accountId: string;
  senderId: string;
  expiresAt: string;
}

export function PairingCard() {
  const [requests, setRequests] = useState<PairingRequest[] | null>(null);
  const reload = useCallback(async () => {
    try {
      setRequests((await api<{ data: PairingRequest[] }>('/pairing', { quiet: true })).data);
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
      const answer = await api<{ message: string }>(`/pairing/${encodeURIComponent(request.code)}/${verb}`, {
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
    <section class="card" aria-label="Pairing requests">
      <div class="card-head">
        <h2 class="section-title">Pairing requests</h2>
      </div>
      <p class="muted">
        People who wrote to a bot whose direct messages need pairing. Approve a code they send you to let them
        chat; they are added to the account's allowlist.
      </p>
      <div class="list">
        {requests.map((request) => (
          <div class="account-row" key={request.code} data-pairing={request.code}>
            <span class="list-item-main">
              <span class="list-item-title mono">{request.code}</span>
              <span class="muted list-item-sub">
                {request.platform}/{request.accountId} · sender {request.senderId} · expires{' '}
                {new Date(request.expiresAt).toLocaleTimeString()}
              </span>
            </span>
            <button type="button" class="btn btn-primary" onClick={() => void decide(request, 'approve')}>
              Approve
            </button>
            <button type="button" class="btn btn-danger" onClick={() => void decide(request, 'reject')}>
              Reject
            </button>
          </div>
        ))}
      </div>
    </section>
  );
}
