// The agent's own skills: list, create, edit and delete (global skills are on the Skills page).
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, apiAll } from '../../api.ts';
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
    isNew ? 'the new skill' : `skill "${skill.name}"`,
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
    toast(`Skill "${editing.skill.name}" saved`, 'success');
    editor.discard();
    await reload();
  };

  const remove = async (skill: Skill) => {
    await confirmDelete(
      {
        title: 'Delete skill',
        message: `Delete the skill "${skill.name}" of this agent?`,
        confirmLabel: 'Delete',
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
          Skills only this agent sees. It reads them with its <code>skill</code> tool.
        </p>
        <span class="spacer" />
        <button
          type="button"
          class="btn"
          onClick={() =>
            editor.open({ skill: { name: '', description: '', content: '', scope: 'local' }, isNew: true })
          }
        >
          <Icon name="plus" /> New skill
        </button>
      </div>
      {skills === null ? (
        <p class="muted">Loading…</p>
      ) : skills.length === 0 ? (
        <p class="muted">This agent has no skills of its own.</p>
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
                label={`Edit skill ${skill.name}`}
                onClick={() => editor.open({ skill, isNew: false })}
              />
              <IconButton
                icon="trash"
                label={`Delete skill ${skill.name}`}
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
