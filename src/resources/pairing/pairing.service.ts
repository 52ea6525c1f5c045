// DM pairing over REST: the pending requests, approve (the sender joins the account's allow_from,
// written to the config file) and reject (the request is dropped; the sender may ask again later).
import type { PairingRequest, PairingStore } from '../../channels/pairing-store.ts';
import type { ConfigStore } from '../../config/config-store.ts';
import { notFound } from '../../core/errors.ts';
import type { PairingDecision, PairingView } from './pairing.schema.ts';

function view(request: PairingRequest): PairingView {
  return {
    code: request.code,
    platform: request.platform,
    accountId: request.accountId,
    senderId: request.senderId,
    createdAt: new Date(request.createdAt).toISOString(),
    expiresAt: new Date(request.expiresAt).toISOString(),
  };
}

export class PairingService {
  constructor(
    private readonly store: ConfigStore,
    private readonly pairing: PairingStore,
  ) {}

  async list(): Promise<{ data: PairingView[]; total: number }> {
    const data = (await this.pairing.list()).map(view);
    return { data, total: data.length };
  }

  async approve(code: string): Promise<PairingDecision> {
    const request = await this.pending(code);
    await this.store.update((editor, current) => {
      const platform = current.channels[request.platform as keyof typeof current.channels];
      const account = platform?.accounts[request.accountId];
      if (!account)
        throw notFound(`channel account ${request.platform}/${request.accountId} no longer exists`);
      if (!account.allow_from.includes(request.senderId)) {
        const path = ['channels', request.platform, 'accounts', request.accountId, 'allow_from'];
        const written = editor.get(path);
        const list = Array.isArray(written) ? written : account.allow_from;
        editor.set(path, [...list, request.senderId]);
      }
    });
    await this.pairing.remove(request.code);
    return {
      success: true,
      message: `sender ${request.senderId} added to allow_from of ${request.platform}/${request.accountId}`,
      request: view(request),
    };
  }

  async reject(code: string): Promise<PairingDecision> {
    const request = await this.pending(code);
    await this.pairing.remove(request.code);
    return { success: true, message: `pairing request ${request.code} rejected`, request: view(request) };
  }

  private async pending(code: string): Promise<PairingRequest> {
    const request = await this.pairing.get(code);
    if (!request) throw notFound(`no pending pairing request with code "${code}" (it may have expired)`);
    return request;
  }
}
