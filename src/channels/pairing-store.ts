// DM pairing (dm_policy: pairing), as OpenClaw's dmPolicy pairing: a sender not on the account's
// allow_from who writes to the bot is given a short code, once (a pending request is not answered
// again until it expires); an admin approves the code (the sender goes onto allow_from) or rejects
// it. Requests live in the database (migration 501-channel-pairings), so every instance of a
// cluster sees them; they expire after an hour and an account holds at most a few at a time.
import { randomInt } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Db } from '../storage/database.ts';

interface PairingsTable {
  code: string;
  platform: string;
  account_id: string;
  sender_id: string;
  sender_name: string | null;
  created_at: number;
  expires_at: number;
}

type PairingsDb = Kysely<{ channel_pairings: PairingsTable }>;

export interface PairingRequest {
  code: string;
  platform: string;
  accountId: string;
  senderId: string;
  senderName: string | null;
  createdAt: number;
  expiresAt: number;
}

export const PAIRING_TTL_MS = 60 * 60_000;
/** Pending requests one account may hold; senders past it get no code until one is settled. */
export const MAX_PENDING_PER_ACCOUNT = 3;
/** No 0/O, 1/I/L: a code is read off a phone and typed. */
const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const CODE_LENGTH = 8;

function newCode(): string {
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return code;
}

function view(row: PairingsTable): PairingRequest {
  return {
    code: row.code,
    platform: row.platform,
    accountId: row.account_id,
    senderId: row.sender_id,
    senderName: row.sender_name,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
  };
}

export class PairingStore {
  private readonly db: PairingsDb;

  constructor(
    database: Db,
    private readonly now: () => number = Date.now,
  ) {
    this.db = database.withTables<{ channel_pairings: PairingsTable }>() as unknown as PairingsDb;
  }

  /**
   * A code for this sender if it has none pending: undefined when it already has one (it was told
   * once) or when the account has too many pending requests.
   */
  async request(sender: {
    platform: string;
    accountId: string;
    senderId: string;
    senderName?: string | undefined;
  }): Promise<PairingRequest | undefined> {
    const now = this.now();
    await this.db.deleteFrom('channel_pairings').where('expires_at', '<=', now).execute();
    const pending = await this.db
      .selectFrom('channel_pairings')
      .select(['sender_id'])
      .where('platform', '=', sender.platform)
      .where('account_id', '=', sender.accountId)
      .execute();
    if (pending.some((row) => row.sender_id === sender.senderId)) return undefined;
    if (pending.length >= MAX_PENDING_PER_ACCOUNT) return undefined;
    const row: PairingsTable = {
      code: newCode(),
      platform: sender.platform,
      account_id: sender.accountId,
      sender_id: sender.senderId,
      sender_name: sender.senderName ?? null,
      created_at: now,
      expires_at: now + PAIRING_TTL_MS,
    };
    try {
      await this.db.insertInto('channel_pairings').values(row).execute();
    } catch {
      // The same sender's request inserted at once by another message (or instance): it has one.
      return undefined;
    }
    return view(row);
  }

  /** Pending requests, oldest first. */
  async list(): Promise<PairingRequest[]> {
    const rows = await this.db
      .selectFrom('channel_pairings')
      .selectAll()
      .where('expires_at', '>', this.now())
      .orderBy('created_at')
      .execute();
    return rows.map(view);
  }

  async get(code: string): Promise<PairingRequest | undefined> {
    const row = await this.db
      .selectFrom('channel_pairings')
      .selectAll()
      .where('code', '=', code.trim().toUpperCase())
      .where('expires_at', '>', this.now())
      .executeTakeFirst();
    return row ? view(row) : undefined;
  }

  /** Removes a request; whether it was there. */
  async remove(code: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('channel_pairings')
      .where('code', '=', code.trim().toUpperCase())
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
