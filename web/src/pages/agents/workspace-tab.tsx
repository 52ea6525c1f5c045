// The agent's workspace: browse folders, open a file in the editor, save, create and delete.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { t } from '../../i18n/index.ts';
import { confirmDelete, promptText } from '../../ui/confirm.tsx';
import { Icon, IconButton } from '../../ui/icons.tsx';
import { toast } from '../../ui/toast.tsx';
import type { WorkspaceEntry } from '@server/resources/workspace/workspace.schema.ts';
import type { FileContent } from '@server/resources/workspace/workspace.schema.ts';

type Entry = WorkspaceEntry;

const join = (folder: string, name: string) => (folder ? `${folder}/${name}` : name);

export function WorkspaceTab({ agentId }: { agentId: string }) {
  const base = `/agents/${encodeURIComponent(agentId)}/workspace`;
  const [folder, setFolder] = useState('');
  const [entries, setEntries] = useState<Entry[] | null>(null);
  const [open, setOpen] = useState<{ path: string; content: string; saved: string } | null>(null);

  const list = useCallback(async () => {
    try {
      const answer = await api<Entry[]>(`${base}/entries`, { query: { path: folder } });
      setEntries(
        [...answer].sort((a, b) => Number(b.isDir) - Number(a.isDir) || a.name.localeCompare(b.name)),
      );
    } catch {
      setEntries([]);
    }
  }, [base, folder]);
  useEffect(() => {
    void list();
  }, [list]);

  const openFile = async (path: string) => {
    try {
      const { content } = await api<FileContent>(`${base}/file`, { query: { path } });
      setOpen({ path, content, saved: content });
    } catch {
      // toasted
    }
  };

  const save = async () => {
    if (!open) return;
    try {
      await api(`${base}/file`, {
        method: 'PUT',
        query: { path: open.path },
        body: { content: open.content },
      });
      setOpen({ ...open, saved: open.content });
      toast(t('ws.saved', { path: open.path }), 'success');
      await list();
    } catch {
      // toasted
    }
  };

  const create = async (kind: 'file' | 'folder') => {
    const name = await promptText({
      title: kind === 'file' ? t('ws.newFile') : t('ws.newFolder'),
      label: t('ws.name'),
      confirmLabel: t('ws.create'),
    });
    if (!name) return;
    const path = join(folder, name);
    try {
      if (kind === 'file') {
        await api(`${base}/files`, { method: 'POST', body: { path, content: '' } });
        setOpen({ path, content: '', saved: '' });
      } else await api(`${base}/dirs`, { method: 'POST', body: { path } });
      await list();
    } catch {
      // toasted
    }
  };

  const remove = async (entry: Entry) => {
    const path = join(folder, entry.name);
    await confirmDelete(
      {
        title: entry.isDir ? t('ws.deleteFolder') : t('ws.deleteFile'),
        message: entry.isDir ? t('ws.deleteFolderMessage', { path }) : t('ws.deleteFileMessage', { path }),
        confirmLabel: t('ws.delete'),
      },
      async () => {
        await api(`${base}/entry`, { method: 'DELETE', query: { path } });
        if (open?.path === path || open?.path.startsWith(`${path}/`)) setOpen(null);
        await list();
      },
    );
  };

  const crumbs = folder ? folder.split('/') : [];
  return (
    <div class="workspace">
      <div class="workspace-files">
        <div class="toolbar">
          <nav class="crumbs" aria-label={t('ws.folder')}>
            <button type="button" class="link" onClick={() => setFolder('')}>
              {t('ws.workspace')}
            </button>
            {crumbs.map((crumb, index) => (
              <span key={index}>
                {' / '}
                <button
                  type="button"
                  class="link"
                  onClick={() => setFolder(crumbs.slice(0, index + 1).join('/'))}
                >
                  {crumb}
                </button>
              </span>
            ))}
          </nav>
          <span class="spacer" />
          <IconButton
            icon="file"
            label={t('ws.newFile')}
            title={t('ws.newFile')}
            onClick={() => void create('file')}
          />
          <IconButton
            icon="folder"
            label={t('ws.newFolder')}
            title={t('ws.newFolder')}
            onClick={() => void create('folder')}
          />
        </div>
        {entries === null ? (
          <p class="muted">{t('ws.loading')}</p>
        ) : entries.length === 0 ? (
          <p class="muted">{t('ws.empty')}</p>
        ) : (
          <ul class="list file-list">
            {entries.map((entry) => {
              const path = join(folder, entry.name);
              return (
                <li key={entry.name} class={open?.path === path ? 'list-item active' : 'list-item'}>
                  <button
                    type="button"
                    class="file-link"
                    onClick={() => (entry.isDir ? setFolder(path) : void openFile(path))}
                  >
                    <Icon name={entry.isDir ? 'folder' : 'file'} />
                    <span>{entry.name}</span>
                    {entry.size !== undefined && <span class="muted file-size">{entry.size} B</span>}
                  </button>
                  <IconButton
                    icon="trash"
                    label={t('ws.deleteAria', { name: entry.name })}
                    onClick={() => void remove(entry)}
                  />
                </li>
              );
            })}
          </ul>
        )}
      </div>
      <div class="workspace-editor">
        {open ? (
          <>
            <div class="toolbar">
              <strong class="file-path">{open.path}</strong>
              <span class="spacer" />
              <button
                type="button"
                class="btn btn-primary"
                disabled={open.content === open.saved}
                onClick={() => void save()}
              >
                {t('ws.saveFile')}
              </button>
            </div>
            <textarea
              class="input code-input file-editor"
              aria-label={t('ws.content', { path: open.path })}
              spellcheck={false}
              value={open.content}
              onInput={(event) => setOpen({ ...open, content: event.currentTarget.value })}
              onKeyDown={(event) => {
                if ((event.ctrlKey || event.metaKey) && event.key === 's') {
                  event.preventDefault();
                  void save();
                }
              }}
            />
          </>
        ) : (
          <p class="muted empty-state">{t('ws.openFile')}</p>
        )}
      </div>
    </div>
  );
}
