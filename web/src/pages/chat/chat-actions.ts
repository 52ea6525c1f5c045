// What the chat page asks the server besides chatting: a conversation's export as a download, the
// switch to another version of a message, rename, pin, archive and delete, and the address of a
// conversation or a search hit.
import { api, request } from '../../api.ts';
import { t } from '../../i18n/index.ts';
import { href } from '../../router.ts';
import type { SessionView } from '../../types.ts';
import { confirmAction, promptText } from '../../ui/confirm.tsx';
import { toast } from '../../ui/toast.tsx';
import { sessionTitle } from './session-list.tsx';

export function sessionPath(agentId: string, sessionId: string): string {
  return `/agents/${encodeURIComponent(agentId)}/sessions/${encodeURIComponent(sessionId)}`;
}

/** The file name of a Content-Disposition header (filename* first), or a fallback. */
export function dispositionName(header: string | null, fallback: string): string {
  const extended = /filename\*=UTF-8''([^;]+)/i.exec(header ?? '');
  if (extended?.[1]) {
    try {
      return decodeURIComponent(extended[1]);
    } catch {
      // a malformed name: the plain one below
    }
  }
  return /filename="([^"]+)"/i.exec(header ?? '')?.[1] ?? fallback;
}

/** Downloads a conversation's active branch as Markdown or JSON (GET .../export). */
export async function downloadExport(agentId: string, key: string, format: 'md' | 'json'): Promise<void> {
  const response = await request(`${sessionPath(agentId, key)}/export`, { query: { format } });
  const name = dispositionName(response.headers.get('content-disposition'), `conversation.${format}`);
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
  toast(t('chat.export.done', { file: name }), 'success');
}

/** Makes the branch through a message the active one (another version of it is shown). */
export async function showVersion(agentId: string, key: string, messageId: number): Promise<void> {
  await request(`${sessionPath(agentId, key)}/branch`, { method: 'POST', body: { messageId } });
}

/** The UI's address of a conversation of an agent from its key. */
export function keyHref(agentId: string, key: string): string {
  const own = `agent:${agentId}:channel:api:scope:per_peer:`;
  return href('chat', agentId, key.startsWith(own) ? key.slice(own.length) : key);
}

export async function renameSession(
  agentId: string,
  session: SessionView,
  then: () => unknown,
): Promise<void> {
  const title = await promptText({
    title: t('chat.rename.title'),
    label: t('chat.rename.label'),
    value: sessionTitle(session),
  });
  if (title === null) return;
  await api(sessionPath(agentId, session.key), { method: 'PATCH', body: { title } });
  then();
}

/** Pins or archives a conversation (PATCH); the list then reloads. */
export async function markSession(
  agentId: string,
  session: SessionView,
  marks: { pinned?: boolean; archived?: boolean },
  then: () => unknown,
): Promise<void> {
  try {
    await api(sessionPath(agentId, session.key), { method: 'PATCH', body: marks });
    if (marks.archived) toast(t('list.archivedDone'), 'success');
  } catch {
    // toasted
  }
  then();
}

/** Deletes a conversation after confirmation. */
export async function deleteSession(
  agentId: string,
  session: SessionView,
  then: () => unknown,
): Promise<void> {
  const confirmed = await confirmAction({
    title: t('chat.delete.title'),
    message: t('chat.delete.message', { title: sessionTitle(session), count: session.messageCount }),
    confirmLabel: t('common.delete'),
    danger: true,
  });
  if (!confirmed) return;
  await request(sessionPath(agentId, session.key), { method: 'DELETE' });
  toast(t('chat.deleted'), 'success');
  then();
}
