// The steps the migrations repeat, declared once: a run of required columns of one type, an index
// made if missing, a column added if missing. Each builds exactly the statement the migrations used
// to spell out step by step: a released migration must keep making the same schema, since existing
// databases already ran it.
import type { CreateTableBuilder, Kysely } from 'kysely';
import { hasColumn, type ColumnTypes, type Dialect } from './column-types.ts';

type DataType = ColumnTypes['key'];

/** Adds `names`, in this order, as `not null` columns of `dataType`: for `createTable(…).$call(…)`. */
export function required<N extends string>(dataType: DataType, ...names: N[]) {
  return <TB extends string, C extends string>(
    table: CreateTableBuilder<TB, C>,
  ): CreateTableBuilder<TB, C | N> =>
    names.reduce<CreateTableBuilder<TB, C | N>>(
      (built, name) => built.addColumn(name, dataType, (column) => column.notNull()),
      table,
    );
}

/** `create [unique] index if not exists name on table (columns)`. */
export async function createIndex(
  db: Kysely<unknown>,
  name: string,
  table: string,
  columns: string[],
  options: { unique?: boolean } = {},
): Promise<void> {
  const index = db.schema.createIndex(name).ifNotExists().on(table).columns(columns);
  await (options.unique ? index.unique() : index).execute();
}

/** A nullable column (or one with a default), added unless `table` has it already (a build may have). */
export async function addColumnIfMissing(
  db: Kysely<unknown>,
  dialect: Dialect,
  table: string,
  column: string,
  dataType: DataType,
  defaultValue?: number,
): Promise<void> {
  if (await hasColumn(db, dialect, table, column)) return;
  await db.schema
    .alterTable(table)
    .addColumn(column, dataType, (built) =>
      defaultValue === undefined ? built : built.notNull().defaultTo(defaultValue),
    )
    .execute();
}
