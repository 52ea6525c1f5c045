// The few places where SQLite and PostgreSQL need different column types. Everything else in the
// migrations (and every query in the stores) is the same kysely code on both.
import { sql, type ColumnDataType, type ColumnDefinitionBuilder, type Expression, type Kysely } from 'kysely';

type DataTypeExpression = ColumnDataType | Expression<unknown>;

export type Dialect = 'sqlite' | 'postgres';

export interface ColumnTypes {
  /** Text compared and ordered byte by byte on both (SQLite's BINARY; "C" on Postgres). */
  key: DataTypeExpression;
  /** Millisecond timestamps and durations: past 2^31, so int8 on Postgres (read back as numbers). */
  integer: DataTypeExpression;
  /** An autoincrementing primary key. */
  id: DataTypeExpression;
  idColumn: (column: ColumnDefinitionBuilder) => ColumnDefinitionBuilder;
}

export function columnTypes(dialect: Dialect): ColumnTypes {
  if (dialect === 'postgres') {
    return {
      key: sql`text collate "C"`,
      integer: 'bigint',
      id: 'bigint',
      idColumn: (column) => column.primaryKey().generatedByDefaultAsIdentity(),
    };
  }
  return {
    key: 'text',
    integer: 'integer',
    id: 'integer',
    idColumn: (column) => column.primaryKey().autoIncrement(),
  };
}

/** Whether `table` (in the current schema) has `column`; for additive migrations that may find it added. */
export async function hasColumn(
  db: Kysely<unknown>,
  dialect: Dialect,
  table: string,
  column: string,
): Promise<boolean> {
  if (dialect === 'postgres') {
    const { rows } = await sql<{ found: number }>`
      select 1 as found from information_schema.columns
      where table_schema = current_schema() and table_name = ${table} and column_name = ${column}`.execute(
      db,
    );
    return rows.length > 0;
  }
  const { rows } = await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(db);
  return rows.some((row) => row.name === column);
}
