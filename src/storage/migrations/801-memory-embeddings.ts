// The optional embeddings layer of memory search (issue 22). Memory chunks get the hash of their
// text, and on libsql a cache of vectors by (model, hash): an unchanged chunk is never embedded
// twice, and another model or dimension has its own rows. Vectors are libsql vector blobs
// (`vector32`), compared with `vector_distance_cos`. PostgreSQL (clustered) gets the hash column
// only: without pgvector there, memory search is keyword-only.
import { sql, type Kysely, type Migration } from 'kysely';
import { columnTypes, hasColumn, type Dialect } from './column-types.ts';

export function memoryEmbeddings(dialect: Dialect): Migration {
  const type = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (!(await hasColumn(db, dialect, 'search_documents', 'content_hash')))
        await db.schema.alterTable('search_documents').addColumn('content_hash', type.key).execute();
      if (dialect !== 'sqlite') return;
      // F32_BLOB without a length: the length is the configured model's, not the schema's; rows
      // of one model all have one length (its `dimensions`), which every query filters on.
      await sql`create table if not exists memory_vectors (
        model text not null,
        hash text not null,
        dimensions integer not null,
        vector F32_BLOB not null,
        created_at integer not null,
        primary key (model, hash)
      ) without rowid`.execute(db);
      await db.schema
        .createIndex('search_documents_by_hash')
        .ifNotExists()
        .on('search_documents')
        .column('content_hash')
        .execute();
    },
  };
}
