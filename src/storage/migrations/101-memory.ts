// Memory that lasts: session messages are never deleted any more, so a session gains summary entries
// (each records the range of message ids it folds), a status for stopped and failed turns, and a
// keyword index beside them. The index is one table of search documents (memory-file chunks and
// session messages) with, on SQLite, two FTS5 tables over it (words with BM25; trigrams for Chinese,
// Japanese and Korean) and, on PostgreSQL, a `simple` tsvector plus a pg_trgm index.
import { sql, type Kysely, type Migration, type RawBuilder } from 'kysely';
import { columnTypes, hasColumn, type Dialect } from './column-types.ts';
import { createIndex, required } from './schema-steps.ts';

/** Held while pg_trgm is installed: schemas migrating at once would race on the one extension row. */
const EXTENSION_LOCK = 7_301_022;

export function memory(dialect: Dialect): Migration {
  const type = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (!(await hasColumn(db, dialect, 'session_messages', 'status'))) {
        await db.schema.alterTable('session_messages').addColumn('status', 'text').execute();
        await db.schema.alterTable('session_messages').addColumn('error', 'text').execute();
      }
      await db.schema
        .createTable('session_summaries')
        .ifNotExists()
        .addColumn('id', type.id, type.idColumn)
        .$call(required(type.key, 'session_key'))
        .$call(required(type.integer, 'first_id', 'last_id'))
        .$call(required('text', 'content'))
        .$call(required(type.integer, 'tokens', 'created_at'))
        .execute();
      await createIndex(db, 'session_summaries_by_key', 'session_summaries', ['session_key', 'last_id'], {
        unique: true,
      });
      await db.schema
        .createTable('memory_files')
        .ifNotExists()
        .$call(required(type.key, 'agent_id', 'path'))
        .$call(required(type.integer, 'mtime_ms', 'size'))
        .addPrimaryKeyConstraint('memory_files_pk', ['agent_id', 'path'])
        .execute();
      await db.schema
        .createTable('search_documents')
        .ifNotExists()
        .addColumn('id', type.id, type.idColumn)
        .$call(required('text', 'corpus'))
        .$call(required(type.key, 'agent_id', 'source'))
        .$call(required(type.integer, 'start_line', 'end_line'))
        .addColumn('ref_id', type.integer)
        .$call(required(type.integer, 'at'))
        .$call(required('text', 'text'))
        .execute();
      await createIndex(db, 'search_documents_by_source', 'search_documents', [
        'corpus',
        'agent_id',
        'source',
      ]);
      if (dialect === 'sqlite') {
        await sql`create virtual table if not exists search_words using fts5(text, content='search_documents', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')`.execute(
          db,
        );
        await sql`create virtual table if not exists search_trigrams using fts5(text, content='search_documents', content_rowid='id', tokenize='trigram')`.execute(
          db,
        );
        // External-content FTS tables follow their table through triggers, in the same transaction.
        await sql`create trigger if not exists search_documents_ai after insert on search_documents begin
          insert into search_words(rowid, text) values (new.id, new.text);
          insert into search_trigrams(rowid, text) values (new.id, new.text);
        end`.execute(db);
        await sql`create trigger if not exists search_documents_ad after delete on search_documents begin
          insert into search_words(search_words, rowid, text) values ('delete', old.id, old.text);
          insert into search_trigrams(search_trigrams, rowid, text) values ('delete', old.id, old.text);
        end`.execute(db);
        await sql`create virtual table if not exists search_vocabulary using fts5vocab(search_words, 'row')`.execute(
          db,
        );
        await backfill(db, sql`json_extract(m.message, '$.content')`);
        return;
      }
      await sql`select pg_advisory_xact_lock(${EXTENSION_LOCK})`.execute(db);
      await sql`create extension if not exists pg_trgm with schema public`.execute(db);
      if (!(await hasColumn(db, dialect, 'search_documents', 'words')))
        await sql`alter table search_documents add column words tsvector generated always as (to_tsvector('simple', text)) stored`.execute(
          db,
        );
      await sql`create index if not exists search_documents_words on search_documents using gin (words)`.execute(
        db,
      );
      await sql`create index if not exists search_documents_trigrams on search_documents using gin (text public.gin_trgm_ops)`.execute(
        db,
      );
      await backfill(db, sql`(m.message::json ->> 'content')`);
    },
  };
}

/** Messages stored before this migration become searchable too (their text; tool calls are not). */
async function backfill(db: Kysely<unknown>, content: RawBuilder<unknown>): Promise<void> {
  await sql`insert into search_documents (corpus, agent_id, source, start_line, end_line, ref_id, at, text)
    select 'session', s.agent_id, m.session_key, 1, 1, m.id, m.created_at, ${content}
    from session_messages m join sessions s on s.key = m.session_key
    where ${content} is not null and ${content} <> ''
      and not exists (select 1 from search_documents d where d.corpus = 'session' and d.ref_id = m.id)`.execute(
    db,
  );
}
