// The optional embeddings layer of memory search (issue 22). Memory chunks get the hash of their
// text, and on libsql a cache of vectors by (model, hash): an unchanged chunk is never embedded
// twice, and another model or dimension has its own rows. Vectors are libsql vector blobs
// (`vector32`), compared with `vector_distance_cos`. PostgreSQL (clustered) gets the hash column
// only: without pgvector there, memory search is keyword-only.
import { sql, type Kysely, type Migration } from 'kysely';
import { columnTypes, type Dialect } from './column-types.ts';
import { addColumnIfMissing, createIndex } from './schema-steps.ts';

export function memoryEmbeddings(dialect: Dialect): Migration {
  const type = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await addColumnIfMissing(db, dialect, 'search_documents', 'content_hash', type.key);
      if (dialect !== 'sqlite') return;
      // F32_BLOB without a length: the length is the configured model's, not the schema's; rows
      // of one model all have one length (its `dimensions`), which every query filters on.
      // A rowid table (not WITHOUT ROWID): its rows are large, and a lookup through the small
      // (model, hash) index then reads one row instead of walking a b-tree of whole vectors.
      await sql`create table if not exists memory_vectors (
        model text not null,
        hash text not null,
        dimensions integer not null,
        vector F32_BLOB not null,
        created_at integer not null
      )`.execute(db);
      await sql`create unique index if not exists memory_vectors_by_hash on memory_vectors (model, hash)`.execute(
        db,
      );
      await createIndex(db, 'search_documents_by_hash', 'search_documents', ['content_hash']);
    },
  };
}
