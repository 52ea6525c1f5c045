// DM pairing requests (dm_policy: pairing): an unknown sender of a channel account is given a short
// code once; an admin approves it (the sender goes onto the account's allow_from) or rejects it.
import type { Kysely, Migration } from 'kysely';
import { columnTypes, type Dialect } from './column-types.ts';
import { createIndex, required } from './schema-steps.ts';

export function channelPairings(dialect: Dialect): Migration {
  const type = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('channel_pairings')
        .ifNotExists()
        .addColumn('code', type.key, (c) => c.primaryKey())
        .$call(required(type.key, 'platform', 'account_id', 'sender_id'))
        .addColumn('sender_name', 'text')
        .$call(required(type.integer, 'created_at', 'expires_at'))
        .execute();
      await createIndex(
        db,
        'channel_pairings_by_sender',
        'channel_pairings',
        ['platform', 'account_id', 'sender_id'],
        {
          unique: true,
        },
      );
    },
  };
}
