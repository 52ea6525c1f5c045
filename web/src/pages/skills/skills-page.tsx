// Skills, global or of one agent (the scope switch, kept in the URL: /ui/skills or
// /ui/skills/agent/<id>): list, create, edit, upload a zip, copy to another scope, delete.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, apiAll } from '../../api.ts';
import { t } from '../../i18n/index.ts';
import { href, navigate } from '../../router.ts';
import type { PageProps } from '../../routes.ts';
import { useAgentIds } from '../../ui/agent-filter.tsx';
import { confirmDelete } from '../../ui/confirm.tsx';
import { Dialog, FormActions } from '../../ui/dialog.tsx';
import { useFormErrors } from '../../ui/form-errors.ts';
import { Icon, IconButton } from '../../ui/icons.tsx';
import { toast } from '../../ui/toast.tsx';
import { useEditedDraft } from '../../ui/unsaved.ts';
import { uploadForm } from '../../ui/upload.ts';
import '../../styles/manage.css';
import { saveSkill, SkillDialog, type Skill } from './skill-dialog.tsx';

/** Where skills live: global, or one agent's own. */
type Scope = { kind: 'global' } | { kind: 'agent'; agentId: string };

const scopeValue = (scope: Scope) => (scope.kind === 'global' ? 'global' : `agent:${scope.agentId}`);
const scopeLabel = (scope: Scope) =>
  scope.kind === 'global' ? t('skills.scopeGlobal') : t('skills.scopeAgent', { id: scope.agentId });

function scopeOf(value: string): Scope {
  return value.startsWith('agent:') ? { kind: 'agent', agentId: value.slice(6) } : { kind: 'global' };
}

/** The collection path of a scope, and the query that places a single-skill write. */
function base(scope: Scope): string {
  return scope.kind === 'global' ? '/skills' : `/agents/${encodeURIComponent(scope.agentId)}/skills`;
}

export function SkillsPage({ params }: PageProps) {
  const scope: Scope =
    params[0] === 'agent' && params[1] ? { kind: 'agent', agentId: params[1] } : { kind: 'global' };
  const agents = useAgentIds();
  const [skills, setSkills] = useState<Skill[] | null>(null);
  const editor = useEditedDraft<{ skill: Skill; isNew: boolean }>(({ skill, isNew }) =>
    isNew ? t('skills.unsavedNew') : t('skills.unsaved', { name: skill.name }),
  );
  const editing = editor.value;
  const errors = useFormErrors();
  const open = editing !== null;
  useEffect(() => {
    if (!open) errors.clear();
  }, [open]);
  const [copying, setCopying] = useState<{ skill: Skill; target: string; newName: string } | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const collection = base(scope);

  const reload = useCallback(async () => {
    try {
      const query = scope.kind === 'global' ? { scope: 'global' } : {};
      setSkills(await apiAll<Skill>(collection, { query }));
    } catch {
      setSkills([]);
    }
  }, [collection]);
  useEffect(() => {
    setSkills(null);
    void reload();
  }, [reload]);

  const switchScope = (value: string) => {
    const next = scopeOf(value);
    navigate(next.kind === 'global' ? href('skills') : href('skills', 'agent', next.agentId));
  };

  const save = async () => {
    if (!editing) return;
    const query: Record<string, string> = scope.kind === 'global' ? { scope: 'global' } : {};
    if (!(await saveSkill(collection, editing, errors, query))) return;
    toast(t('skills.saved', { name: editing.skill.name }), 'success');
    editor.discard();
    await reload();
  };

  const edit = async (skill: Skill) => {
    // The list carries the content too, but read the one skill so the dialog shows what is stored now.
    try {
      const query = scope.kind === 'global' ? { scope: 'global' } : {};
      const fresh = await api<Skill>(`${collection}/${encodeURIComponent(skill.name)}`, { query });
      editor.open({ skill: fresh, isNew: false });
    } catch {
      // toasted
    }
  };

  const remove = async (skill: Skill) => {
    await confirmDelete(
      {
        title: t('skills.delete.title'),
        message: t('skills.delete.message', { name: skill.name, scope: scopeLabel(scope) }),
        confirmLabel: t('skills.delete.title'),
      },
      async () => {
        await api(`${collection}/${encodeURIComponent(skill.name)}`, {
          method: 'DELETE',
          ...(scope.kind === 'global' ? { query: { scope: 'global' } } : {}),
        });
        toast(t('skills.deleted', { name: skill.name }), 'success');
        await reload();
      },
    );
  };

  const upload = async (file: File) => {
    const form = new FormData();
    if (scope.kind === 'global') form.append('scope', 'global');
    form.append('file', file, file.name);
    try {
      const installed = await uploadForm<Skill[]>(`${collection}/upload`, form);
      toast(t('skills.installed', { names: installed.map((skill) => skill.name).join(', ') }), 'success');
      await reload();
    } catch {
      // toasted
    } finally {
      if (fileInput.current) fileInput.current.value = '';
    }
  };

  const copy = async () => {
    if (!copying) return;
    const target = scopeOf(copying.target);
    try {
      await api('/skills/copy', {
        method: 'POST',
        body: {
          name: copying.skill.name,
          scope: scope.kind === 'global' ? 'global' : 'local',
          ...(scope.kind === 'agent' ? { agentId: scope.agentId } : {}),
          targetScope: target.kind === 'global' ? 'global' : 'local',
          ...(target.kind === 'agent' ? { targetAgentId: target.agentId } : {}),
          newName: copying.newName.trim() || copying.skill.name,
        },
      });
      toast(t('skills.copiedTo', { scope: scopeLabel(target) }), 'success');
      setCopying(null);
    } catch {
      // toasted
    }
  };

  const scopes: Scope[] = [
    { kind: 'global' },
    ...agents.map((agentId): Scope => ({ kind: 'agent', agentId })),
  ];
  return (
    <div class="page stack">
      <div class="toolbar">
        <h1 class="page-title">{t('skills.title')}</h1>
        <span class="spacer" />
        <select
          class="input input-auto"
          aria-label={t('skills.scope')}
          value={scopeValue(scope)}
          onChange={(event) => switchScope(event.currentTarget.value)}
        >
          <option value="global">{t('skills.globalOption')}</option>
          {agents.map((id) => (
            <option key={id} value={`agent:${id}`}>
              {t('skills.agentOnly', { id })}
            </option>
          ))}
          {scope.kind === 'agent' && !agents.includes(scope.agentId) && (
            <option value={scopeValue(scope)}>{t('skills.agentOnly', { id: scope.agentId })}</option>
          )}
        </select>
      </div>
      <p class="muted">
        {t('skills.intro')} <code>skill</code> {t('skills.introTail')}
        {scope.kind === 'agent' ? t('skills.shadow') : ''}
      </p>
      <div class="toolbar">
        <button
          type="button"
          class="btn btn-primary"
          onClick={() =>
            editor.open({
              skill: {
                name: '',
                description: '',
                content: '',
                scope: scope.kind === 'global' ? 'global' : 'local',
              },
              isNew: true,
            })
          }
        >
          <Icon name="plus" /> {t('skills.new')}
        </button>
        <label class="btn">
          <Icon name="folder" /> {t('skills.uploadZip')}
          <input
            ref={fileInput}
            class="visually-hidden"
            type="file"
            accept=".zip,application/zip,.md"
            aria-label={t('skills.uploadAria')}
            onChange={(event) => {
              const file = event.currentTarget.files?.[0];
              if (file) void upload(file);
            }}
          />
        </label>
      </div>
      {skills === null ? (
        <p class="muted">{t('skills.loading')}</p>
      ) : skills.length === 0 ? (
        <div class="card empty-state">
          <p class="muted">{t('skills.empty', { scope: scopeLabel(scope) })}</p>
        </div>
      ) : (
        <ul class="list card" aria-label={t('skills.list')}>
          {skills.map((skill) => (
            <li key={skill.name} class="list-item" data-skill={skill.name}>
              <span class="list-item-main">
                <span class="list-item-title">{skill.name}</span>
                <span class="muted list-item-sub">{skill.description || t('skills.noDescription')}</span>
              </span>
              <IconButton
                icon="edit"
                label={t('skills.editAria', { name: skill.name })}
                title={t('skills.edit')}
                onClick={() => void edit(skill)}
              />
              <button
                type="button"
                class="icon-btn"
                aria-label={t('skills.copyAria', { name: skill.name })}
                title={t('skills.copyTitle')}
                onClick={() => {
                  const other =
                    scopes.find((candidate) => scopeValue(candidate) !== scopeValue(scope)) ?? scope;
                  setCopying({ skill, target: scopeValue(other), newName: skill.name });
                }}
              >
                <Icon name="copy" />
              </button>
              <IconButton
                icon="trash"
                label={t('skills.deleteAria', { name: skill.name })}
                title={t('skills.delete')}
                onClick={() => void remove(skill)}
              />
            </li>
          ))}
        </ul>
      )}
      <SkillDialog
        editing={editing}
        errors={errors}
        onChange={(skill) => editing && editor.change({ ...editing, skill })}
        onClose={() => void editor.close()}
        onSave={() => void save()}
      />
      <Dialog
        title={t('skills.copyDialog', { name: copying?.skill.name ?? '' })}
        open={copying !== null}
        onClose={() => setCopying(null)}
        actions={
          <FormActions form="copy-form" submitLabel={t('skills.copy')} onCancel={() => setCopying(null)} />
        }
      >
        {copying && (
          <form
            id="copy-form"
            class="stack"
            onSubmit={(event) => {
              event.preventDefault();
              void copy();
            }}
          >
            <label class="field">
              <span class="field-label">{t('skills.copyTo')}</span>
              <select
                class="input"
                value={copying.target}
                onChange={(event) => setCopying({ ...copying, target: event.currentTarget.value })}
              >
                {scopes.map((candidate) => (
                  <option key={scopeValue(candidate)} value={scopeValue(candidate)}>
                    {candidate.kind === 'global'
                      ? t('skills.globalSkills')
                      : t('skills.agentN', { id: candidate.agentId })}
                  </option>
                ))}
              </select>
            </label>
            <label class="field">
              <span class="field-label">{t('skills.newName')}</span>
              <input
                class="input"
                value={copying.newName}
                onInput={(event) => setCopying({ ...copying, newName: event.currentTarget.value })}
              />
            </label>
          </form>
        )}
      </Dialog>
    </div>
  );
}
