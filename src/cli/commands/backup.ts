// `backup <file>` and `restore <file>`: one zip archive of the config file and the data root.
// A running server makes the archive itself (POST /backup: consistent while it works); with no
// server, the files are read here. Restore unpacks onto an empty data root. Single mode only.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { writeFileAtomic } from '../../core/atomic-write.ts';
import { clusteredReason, createBackup, restoreBackup } from '../../storage/backup.ts';
import { CliError } from '../errors.ts';
import type { Context } from '../context.ts';

async function serverArchive(cx: Context, command: Command): Promise<Uint8Array | undefined> {
  const api = await cx.api(command);
  try {
    await api.send('GET', '/health');
  } catch {
    return undefined; // no server: the files are read here
  }
  const response = await api.send('POST', '/backup');
  return new Uint8Array(await response.arrayBuffer());
}

export function registerBackup(program: Command, cx: Context): void {
  program
    .command('backup')
    .description('write one zip archive of the config file and the data root (safe while the server runs)')
    .argument('<file>', 'the archive to write, e.g. backup.zip (0600: it holds keys and conversations)')
    .addHelpText(
      'after',
      '\nThe running server takes the copy (the database through VACUUM INTO, the files during a brief\n' +
        'write pause); with no server running the files are read directly. Clustered mode: use pg_dump.',
    )
    .action(async (file: string, _options: unknown, command: Command) => {
      const server = await cx.server(command);
      const clustered = server.config && clusteredReason(server.config);
      if (clustered) throw new CliError(clustered);
      let archive = await cx.spin('asking the server for a backup', serverArchive(cx, command));
      let source = `the server at ${server.url}`;
      if (!archive) {
        if (!server.config || !server.configPath)
          throw new CliError('no server answers and no config file was found here; pass --config FILE or --url');
        archive = await cx.spin(
          'reading the data root',
          createBackup({
            configPath: server.configPath,
            dataRoot: server.config.data.root_dir,
            logsDir: server.config.data.logs_dir,
            version: cx.io.version,
          }),
        );
        source = server.config.data.root_dir;
      }
      const target = resolve(cx.io.cwd, file);
      await writeFileAtomic(target, archive, { mode: 0o600 });
      cx.ok(`backup of ${source} written to ${target} (${Math.round(archive.length / 1024)} KiB)`);
    });

  program
    .command('restore')
    .description('unpack a backup archive onto an empty data root (and its config file)')
    .argument('<file>', 'an archive written by agent-service backup')
    .option('--data <dir>', 'the data root to restore onto: absent or empty (default: ./data)')
    .option('--skip-config', 'do not write the archived config file')
    .addHelpText(
      'after',
      '\nThe config file goes to --config FILE (default ./config.yaml), which must not exist yet; its\n' +
        'data.root_dir is set to the restored data root. Then start the server: agent-service serve -c FILE',
    )
    .action(async (file: string, options: { data?: string; skipConfig?: boolean }, command: Command) => {
      const globals = cx.globals(command);
      const archive = await readFile(resolve(cx.io.cwd, file)).catch((error: NodeJS.ErrnoException) => {
        throw new CliError(`cannot read ${file}: ${error.code ?? error.message}`);
      });
      const dataRoot = resolve(cx.io.cwd, options.data ?? 'data');
      const configPath =
        options.skipConfig ? undefined : resolve(cx.io.cwd, globals.config ?? 'config.yaml');
      const manifest = await restoreBackup(archive, { dataRoot, ...(configPath ? { configPath } : {}) }).catch(
        (error: Error) => {
          throw new CliError(error.message);
        },
      );
      cx.ok(
        `restored the backup of ${manifest.createdAt} (version ${manifest.version}, ${manifest.files} files) onto ${dataRoot}` +
          (configPath ? `; config: ${configPath}` : ''),
      );
      if (configPath) cx.note(`start it with: agent-service serve -c ${configPath}`);
    });
}
