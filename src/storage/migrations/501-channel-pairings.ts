// DM pairing requests (dm_policy: pairing): an unknown sender of a channel account is given a short
// code once; an admin approves it (the sender goes onto the account's allow_from) or rejects it.
import type { Kysely, Migration } from 'kysely';
import { columnTypes, type Dialect } from './column-types.ts';

export function channelPairings(dialect: Dialect): Migration {
  const type = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('channel_pairings')
        .ifNotExists()
        .addColumn('code', type.key, (c) => c.primaryKey())
        .addColumn('platform', type.key, (c) => c.notNull())
        .addColumn('account_id', type.key, (c) => c.notNull())
        .addColumn('sender_id', type.key, (c) => c.notNull())
        .addColumn('sender_name', 'text')
        .addColumn('created_at', type.integer, (c) => c.notNull())
        .addColumn('expires_at', type.integer, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('channel_pairings_by_sender')
        .ifNotExists()
        .on('channel_pairings')
        .columns(['platform', 'account_id', 'sender_id'])
        .unique()
        .execute();
    },
  };
}
