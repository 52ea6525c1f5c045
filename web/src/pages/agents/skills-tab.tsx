// The agent's own skills: list, create, edit and delete (global skills are on the Skills page).
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, apiAll } from '../../api.ts';
import { t } from '../../i18n/index.ts';
import { confirmDelete } from '../../ui/confirm.tsx';
import { useFormErrors } from '../../ui/form-errors.ts';
import { Icon, IconButton } from '../../ui/icons.tsx';
import { toast } from '../../ui/toast.tsx';
import { useEditedDraft } from '../../ui/unsaved.ts';
import { saveSkill, SkillDialog, type Skill, type SkillEdit } from '../skills/skill-dialog.tsx';

export function SkillsTab({ agentId }: { agentId: string }) {
  const base = `/agents/${encodeURIComponent(agentId)}/skills`;
  const [skills, setSkills] = useState<Skill[] | null>(null);
  const editor = useEditedDraft<SkillEdit>(({ skill, isNew }) =>
    isNew ? t('skillsTab.unsavedNew') : t('skillsTab.unsaved', { name: skill.name }),
  );
  const editing = editor.value;
  const errors = useFormErrors();
  const open = editing !== null;
  useEffect(() => {
    if (!open) errors.clear();
  }, [open]);

  const reload = useCallback(async () => {
    try {
      setSkills(await apiAll<Skill>(base));
    } catch {
      setSkills([]);
    }
  }, [base]);
  useEffect(() => {
    void reload();
  }, [reload]);

  const save = async () => {
    if (!editing || !(await saveSkill(base, editing, errors))) return;
    toast(t('skillsTab.saved', { name: editing.skill.name }), 'success');
    editor.discard();
    await reload();
  };

  const remove = async (skill: Skill) => {
    await confirmDelete(
      {
        title: t('skillsTab.delete.title'),
        message: t('skillsTab.delete.message', { name: skill.name }),
        confirmLabel: t('skillsTab.delete.confirm'),
      },
      async () => {
        await api(`${base}/${encodeURIComponent(skill.name)}`, { method: 'DELETE' });
        await reload();
      },
    );
  };

  return (
    <div class="stack">
      <div class="toolbar">
        <p class="muted">
          {t('skillsTab.hint')} <code>skill</code> {t('skillsTab.hintTail')}
        </p>
        <span class="spacer" />
        <button
          type="button"
          class="btn"
          onClick={() =>
            editor.open({ skill: { name: '', description: '', content: '', scope: 'local' }, isNew: true })
          }
        >
          <Icon name="plus" /> {t('skillsTab.new')}
        </button>
      </div>
      {skills === null ? (
        <p class="muted">{t('skillsTab.loading')}</p>
      ) : skills.length === 0 ? (
        <p class="muted">{t('skillsTab.empty')}</p>
      ) : (
        <ul class="list">
          {skills.map((skill) => (
            <li key={skill.name} class="list-item">
              <span class="list-item-main">
                <span class="list-item-title">{skill.name}</span>
                <span class="muted list-item-sub">{skill.description}</span>
              </span>
              <IconButton
                icon="edit"
                label={t('skillsTab.edit', { name: skill.name })}
                onClick={() => editor.open({ skill, isNew: false })}
              />
              <IconButton
                icon="trash"
                label={t('skillsTab.deleteAria', { name: skill.name })}
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
    </div>
  );
}
