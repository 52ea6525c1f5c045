// What every command gets: the io, output helpers that honour --json and the terminal, and a client
// for the server chosen by --url / SERVICE_URL / the config file with the credential of rule 6.
import type { Command } from 'commander';
import { ApiClient } from './client.ts';
import { findCredential, tokenStorePath } from './credentials.ts';
import { createStyle, formatTable, withSpinner, type CliIo, type Style } from './io.ts';
import { resolveServer, type ServerAddress } from './server-address.ts';

export interface GlobalOptions {
  url?: string;
  config?: string;
  color?: boolean;
}

export class Context {
  readonly style: Style;
  readonly errStyle: Style;
  /** Set by `serve`: the process keeps running after the command returns. */
  keepAlive = false;

  constructor(readonly io: CliIo) {
    this.style = createStyle(io.stdout, io.env);
    this.errStyle = createStyle(io.stderr, io.env);
  }

  /** Turns colours off for --no-color (parsed before any action runs). */
  applyGlobals(options: GlobalOptions): void {
    if (options.color === false) {
      Object.assign(this.style, createStyle(this.io.stdout, this.io.env, false));
      Object.assign(this.errStyle, createStyle(this.io.stderr, this.io.env, false));
    }
  }

  get tokenPath(): string {
    return tokenStorePath(this.io.env, this.io.home);
  }

  globals(command: Command): GlobalOptions {
    return command.optsWithGlobals<GlobalOptions>();
  }

  server(command: Command): Promise<ServerAddress> {
    const options = this.globals(command);
    return resolveServer({
      url: options.url,
      config: options.config,
      env: this.io.env,
      cwd: this.io.cwd,
      home: this.io.home,
    });
  }

  /** A client with the credential of rule 6; `forChat` lets api account keys (chat only) be used. */
  async api(command: Command, forChat = false): Promise<ApiClient> {
    const server = await this.server(command);
    const credential = await findCredential({
      env: this.io.env,
      config: server.config,
      url: server.url,
      tokenPath: this.tokenPath,
      forChat,
    });
    return new ApiClient(server, credential);
  }

  out(text: string): void {
    this.io.stdout.write(text);
  }

  /** Progress and notes go to stderr, so stdout stays data. */
  note(text: string): void {
    this.io.stderr.write(`${text}\n`);
  }

  /** Prints `data` as JSON with --json, else the human form. */
  print(json: boolean | undefined, data: unknown, human: () => string): void {
    this.out(json ? `${JSON.stringify(data, null, 2)}\n` : human());
  }

  table(header: string[], rows: string[][]): string {
    return formatTable(this.io.stdout, header, rows, this.style);
  }

  spin<T>(text: string, work: Promise<T>): Promise<T> {
    return withSpinner(this.io.stderr, text, work);
  }

  ok(text: string): void {
    this.out(`${this.style.green('✓')} ${text}\n`);
  }
}

/** `--json` on a read command. */
export function withJson(command: Command): Command {
  return command.option('--json', 'print the answer as JSON');
}

/** `<parent> delete|rm <id>`: sends DELETE to `path(id)`, then says `<noun> <id> deleted`. */
export function deleteCommand(
  parent: Command,
  cx: Context,
  noun: string,
  path: (id: string) => string,
): void {
  parent
    .command('delete')
    .alias('rm')
    .description(`delete a ${noun}`)
    .argument('<id>', `${noun} id`)
    .action(async (id: string, _options: unknown, command: Command) => {
      const api = await cx.api(command);
      await api.send('DELETE', path(id));
      cx.ok(`${noun} ${id} deleted`);
    });
}

export function enc(segment: string): string {
  return encodeURIComponent(segment);
}
