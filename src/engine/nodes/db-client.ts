// RuleGo's dbClient (components/external/db_client_node.go): SQL with ${...} templates and `?`
// parameters; SELECT sets the data to the rows (or the first with getOne), INSERT sets metadata
// rowsAffected and lastInsertId, UPDATE/DELETE/other statements rowsAffected; a list parameter
// expands into as many placeholders (`IN (?)`). Connections open on the first message and close
// with the chain.
import { z } from 'zod';
import { compileExprTemplate, exprText } from '../expr-template.ts';
import { goJson } from '../go-json.ts';
import { policyOf } from './network-guard.ts';
import { nodeEnvOf } from './node-env.ts';
import { flag, optionalText, requiredText, wholeNumberIn } from './config-fields.ts';
import { lazyConnection } from './lazy-connection.ts';
import { driverOf, openSql, replacePlaceholders } from './sql/sql-drivers.ts';
import { defineNode } from './define-node.ts';

const OP_TYPES = ['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'EXEC', 'AUTO'] as const;

const configSchema = z.object({
  driverName: z.string().default('mysql').meta({
    label: 'Driver',
    description: 'postgres, mysql or sqlite3 (a libsql/SQLite file).',
  }),
  dsn: requiredText(
    'DSN',
    'postgres://user:password@host:5432/db, mysql://user:password@host:3306/db or user:password@tcp(host:3306)/db, or a SQLite file path.',
  ),
  poolSize: wholeNumberIn(0, 100, 5, 'Pool size', 'Connections kept open; 0 is 5.'),
  opType: optionalText(
    'Operation',
    'SELECT, INSERT, UPDATE, DELETE or EXEC; empty or AUTO reads it from the SQL.',
  ),
  sql: z.string().trim().min(1, 'sql can not empty').meta({
    label: 'SQL',
    description:
      'The statement, with ? placeholders for the parameters; ${metadata.key} and ${msg.key} are replaced.',
  }),
  params: z.array(z.unknown()).default([]).meta({
    label: 'Parameters',
    description: 'Values of the ? placeholders, in order; a text with one ${expr} keeps its type.',
  }),
  getOne: flag('First row only', 'SELECT: the data is the first row instead of the list.'),
});

function opTypeOf(sql: string): string {
  const word = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? '';
  return ['SELECT', 'INSERT', 'UPDATE', 'DELETE'].includes(word) ? word : 'EXEC';
}

export const dbClientNode = defineNode(configSchema, {
  type: 'dbClient',
  label: 'Database',
  description:
    'Runs SQL on PostgreSQL, MySQL or SQLite: SELECT rows become the data, other statements report rowsAffected.',
  category: 'external',
  relations: ['Success', 'Failure'],
  create(config, factory) {
    const { nodeId, services } = factory;
    const driver = driverOf(config.driverName);
    const opType = config.opType.trim().toUpperCase();
    if (opType !== '' && !(OP_TYPES as readonly string[]).includes(opType))
      throw new Error(`unsupported opTypet: ${opType}`);
    const sql = compileExprTemplate(config.sql, `node "${nodeId}" sql`);
    const params = config.params.map((param) =>
      typeof param === 'string'
        ? { template: compileExprTemplate(param, `node "${nodeId}" params`) }
        : { value: param },
    );
    const envOf = nodeEnvOf(factory, true);
    const client = lazyConnection(
      () => openSql(driver, config.dsn, config.poolSize || 5, policyOf(services)),
      (open) => open.close(),
    );
    return {
      async process(message, context) {
        const env = envOf(message, context);
        const text = sql.isStatic ? config.sql : sql.render(env);
        const operation = opType === '' || opType === 'AUTO' ? opTypeOf(text) : opType;
        const values = params.map((param) => (param.template ? param.template.evaluate(env) : param.value));
        const expanded = expandInClause(text, values);
        const result = await (await client.get()).run(expanded.sql, expanded.params, operation === 'SELECT');
        const metadata = { ...message.metadata };
        if (operation === 'SELECT') {
          const rows = result.rows.map(plainRow);
          const data = config.getOne ? exprText(rows[0]) : goJson(rows);
          return [{ relation: 'Success', message: { ...message, data, metadata } }];
        }
        metadata['rowsAffected'] = String(result.rowsAffected);
        if (operation === 'INSERT') metadata['lastInsertId'] = String(result.lastInsertId);
        return [{ relation: 'Success', message: { ...message, metadata } }];
      },
      destroy: () => client.close(),
    };
  },
});

/**
 * RuleGo's expandInClause: a list parameter stands for as many placeholders as it has items
 * (`id IN (?)` with [1, 2, 3] is `id IN (?, ?, ?)`), an empty list for NULL. `?` inside quotes is
 * text, not a placeholder.
 */
export function expandInClause(sql: string, params: unknown[]): { sql: string; params: unknown[] } {
  if (!params.some(Array.isArray)) return { sql, params };
  const values: unknown[] = [];
  let used = 0;
  const expanded = replacePlaceholders(sql, (index) => {
    if (index >= params.length) return '?';
    used = index + 1;
    const param = params[index];
    if (!Array.isArray(param)) {
      values.push(param);
      return '?';
    }
    values.push(...(param as unknown[]));
    return param.length === 0 ? 'NULL' : param.map(() => '?').join(', ');
  });
  return { sql: expanded, params: [...values, ...params.slice(used)] };
}

/** A row as JSON values: dates as ISO text, big integers and buffers as text. */
function plainRow(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    if (value instanceof Date) out[key] = value.toISOString();
    else if (typeof value === 'bigint') out[key] = value.toString();
    else if (Buffer.isBuffer(value)) out[key] = value.toString('utf8');
    else out[key] = value;
  }
  return out;
}
