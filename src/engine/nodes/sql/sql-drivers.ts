// The SQL connections of dbClient: PostgreSQL (pg), MySQL (mysql2) and SQLite files (libsql), each
// behind one small interface. Network drivers connect to an address the network guard checked.
import type { NetworkPolicy } from '../../types.ts';
import { guardedAddress } from '../network-guard.ts';

export interface SqlResult {
  rows: Array<Record<string, unknown>>;
  rowsAffected: number;
  lastInsertId: number;
}

export interface SqlClient {
  /** `sql` with `?` placeholders; `reader` true for statements that return rows. */
  run(sql: string, params: unknown[], reader: boolean): Promise<SqlResult>;
  close(): Promise<void>;
}

export type DriverName = 'postgres' | 'mysql' | 'sqlite';

/** RuleGo's driver names (and a few aliases) as ours. */
export function driverOf(name: string): DriverName {
  const lower = name.trim().toLowerCase();
  if (lower === '' || lower === 'mysql') return 'mysql';
  if (['postgres', 'postgresql', 'pgx', 'pg'].includes(lower)) return 'postgres';
  if (['sqlite', 'sqlite3', 'libsql'].includes(lower)) return 'sqlite';
  throw new Error(`unsupported driverName "${name}": postgres, mysql or sqlite3`);
}

/** `sql` with the n-th `?` outside quotes (n from 0) replaced by `replace(n)`. */
export function replacePlaceholders(sql: string, replace: (index: number) => string): string {
  let out = '';
  let quote: string | undefined;
  let index = 0;
  for (const char of sql) {
    if (quote) {
      if (char === quote) quote = undefined;
    } else if (char === "'" || char === '"') quote = char;
    else if (char === '?') {
      out += replace(index);
      index += 1;
      continue;
    }
    out += char;
  }
  return out;
}

/** `?` outside quotes as `$1`, `$2`... (RuleGo's ConvertDollarPlaceholder for postgres). */
export function dollarPlaceholders(sql: string): string {
  return replacePlaceholders(sql, (index) => `$${index + 1}`);
}

interface Endpoint {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  params: URLSearchParams;
}

/** A URL DSN (postgres://, mysql://) or Go's MySQL form user:password@tcp(host:port)/db?x=y. */
export function parseDsn(dsn: string, defaultPort: number): Endpoint {
  const go = /^(?:([^:@]*)(?::([^@]*))?@)?tcp\(([^)]*)\)\/([^?]*)(?:\?(.*))?$/.exec(dsn.trim());
  if (go) {
    const [host = '', port] = (go[3] ?? '').split(/:(?=\d+$)/);
    return {
      host: host || '127.0.0.1',
      port: port ? Number(port) : defaultPort,
      user: go[1] ?? '',
      password: go[2] ?? '',
      database: go[4] ?? '',
      params: new URLSearchParams(go[5] ?? ''),
    };
  }
  let url: URL;
  try {
    url = new URL(dsn);
  } catch {
    throw new Error(
      'dsn is not a URL (postgres://user:password@host:5432/db) nor user:password@tcp(host:port)/db',
    );
  }
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : defaultPort,
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: decodeURIComponent(url.pathname.replace(/^\//, '')),
    params: url.searchParams,
  };
}

export async function openSql(
  driver: DriverName,
  dsn: string,
  poolSize: number,
  policy: NetworkPolicy,
): Promise<SqlClient> {
  if (driver === 'sqlite') {
    const { default: Database } = await import('libsql');
    const path = dsn.replace(/^file:/, '').replace(/^sqlite3?:\/\//, '');
    const db = new Database(path);
    return {
      run(sql, params, reader) {
        const statement = db.prepare(sql);
        if (reader && statement.reader) {
          return Promise.resolve({
            rows: statement.all(...params) as Array<Record<string, unknown>>,
            rowsAffected: 0,
            lastInsertId: 0,
          });
        }
        const info = statement.run(...params);
        return Promise.resolve({
          rows: [],
          rowsAffected: Number(info.changes),
          lastInsertId: Number(info.lastInsertRowid),
        });
      },
      close: () => {
        db.close();
        return Promise.resolve();
      },
    };
  }
  const endpoint = parseDsn(dsn, driver === 'postgres' ? 5432 : 3306);
  const address = await guardedAddress(policy, endpoint.host, endpoint.port);
  if (driver === 'postgres') {
    const { default: pg } = await import('pg');
    const sslmode = endpoint.params.get('sslmode');
    const pool = new pg.Pool({
      host: address,
      port: endpoint.port,
      user: endpoint.user,
      password: endpoint.password,
      database: endpoint.database,
      max: poolSize,
      ...(sslmode && sslmode !== 'disable'
        ? { ssl: { servername: endpoint.host, rejectUnauthorized: sslmode !== 'require' } }
        : {}),
    });
    pool.on('error', () => undefined);
    return {
      async run(sql, params) {
        const result = await pool.query(dollarPlaceholders(sql), params);
        return {
          rows: result.rows as Array<Record<string, unknown>>,
          rowsAffected: result.rowCount ?? 0,
          lastInsertId: 0,
        };
      },
      close: () => pool.end(),
    };
  }
  const mysql = await import('mysql2/promise');
  const pool = mysql.createPool({
    host: address,
    port: endpoint.port,
    user: endpoint.user,
    password: endpoint.password,
    database: endpoint.database,
    connectionLimit: poolSize,
  });
  return {
    async run(sql, params) {
      const [result] = await pool.query(sql, params);
      if (Array.isArray(result))
        return { rows: result as Array<Record<string, unknown>>, rowsAffected: 0, lastInsertId: 0 };
      const header = result as { affectedRows?: number; insertId?: number };
      return { rows: [], rowsAffected: header.affectedRows ?? 0, lastInsertId: header.insertId ?? 0 };
    },
    close: () => pool.end(),
  };
}
