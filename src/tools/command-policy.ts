import { AppError } from '../core/errors.ts';

/**
 * Commands the bash tool refuses unless the agent's config replaces the list. They catch
 * destructive accidents (wiping the disk or home, privilege escalation, powering off, fork bombs);
 * they are guard rails, not a sandbox: a determined command can always be disguised. Network
 * tools (curl, wget) are allowed, since fetching is a common need and a deny entry would not stop
 * it (python, nc or /dev/tcp would); use `allow` to confine an agent to known commands.
 * Entries are plain phrases of whole words, or `/regex/flags`.
 */
export const DEFAULT_DENY_LIST: readonly string[] = [
  '/\\brm\\s+(?:-\\S+\\s+)*(?:\\/|\\/\\*|~|~\\/|\\$HOME|\\$HOME\\/)(?:\\s|$|[;&|])/',
  '--no-preserve-root',
  'sudo',
  'su',
  'doas',
  'shutdown',
  'reboot',
  'halt',
  'poweroff',
  '/\\binit\\s+[06]\\b/',
  'systemctl',
  'mkfs',
  'fdisk',
  'dd if=',
  '/\\bof=\\/dev\\//',
  '/>\\s*\\/dev\\/(?:sd|hd|vd|xvd|nvme|mmcblk)/',
  '/:\\s*\\(\\s*\\)\\s*\\{/',
  'killall',
  '/\\bkill\\s+(?:-\\S+\\s+)*-1\\b/',
];

export interface CommandPolicy {
  /** Entries that refuse a command they match. */
  deny: readonly string[];
  /** When non-empty, every simple command in the line must start with one of these words. */
  allow: readonly string[];
}

/** Throws AppError('forbidden') when the command breaks the policy. */
export function checkCommand(command: string, policy: CommandPolicy): void {
  for (const entry of policy.deny) {
    if (compileEntry(entry).test(command)) {
      throw new AppError('forbidden', `command refused: it matches the deny list entry "${entry}"`);
    }
  }
  if (policy.allow.length === 0) return;
  // Substitutions hide commands from the first-word check, so an allow list forbids them.
  if (/`|\$\(|<\(|>\(/u.test(command)) {
    throw new AppError(
      'forbidden',
      'command refused: substitutions are not allowed when an allow list is set',
    );
  }
  for (const segment of command.split(/&&|\|\||[;&|\n]/u)) {
    const words = segment
      .trim()
      .split(/\s+/u)
      .filter((word) => word !== '');
    const first = words.find((word) => !/^[A-Za-z_][A-Za-z0-9_]*=/u.test(word));
    if (first === undefined) continue;
    if (!policy.allow.includes(first)) {
      throw new AppError('forbidden', `command refused: "${first}" is not in the allow list`);
    }
  }
}

/** `/regex/flags` as written; anything else as a phrase of whole words with flexible spacing. */
export function compileEntry(entry: string): RegExp {
  const regex = /^\/(.+)\/([a-z]*)$/su.exec(entry);
  if (regex) return new RegExp(regex[1] as string, regex[2]);
  const words = entry
    .trim()
    .split(/\s+/u)
    .map((word) => word.replace(/[.*+?^${}()|[\]\\/]/gu, '\\$&'));
  const start = /^[\w-]/u.test(entry.trim()) ? '(?<![\\w-])' : '';
  const end = /[\w-]$/u.test(entry.trim()) ? '(?![\\w-])' : '';
  return new RegExp(`${start}${words.join('\\s+')}${end}`, 'u');
}
