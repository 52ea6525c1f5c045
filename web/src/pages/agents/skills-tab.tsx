// The agent's own skills: list, create, edit and delete (global skills are on the Skills page).
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, apiAll } from '../../api.ts';
import { confirmDelete } from '../../ui/confirm.tsx';
import { Dialog } from '../../ui/dialog.tsx';
import { Icon, IconButton } from '../../ui/icons.tsx';
import { toast } from '../../ui/toast.tsx';

interface Skill {
  name: string;
  description: string;
  content: string;
  scope: string;
}

export function SkillsTab({ agentId }: { agentId: string }) {
  const base = `/agents/${encodeURIComponent(agentId)}/skills`;
  const [skills, setSkills] = useState<Skill[] | null>(null);
  const [editing, setEditing] = useState<{ skill: Skill; isNew: boolean } | null>(null);

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
    if (!editing) return;
    const { skill, isNew } = editing;
    try {
      if (isNew)
        await api(base, {
          method: 'POST',
          body: { name: skill.name, description: skill.description, content: skill.content },
        });
      else
        await api(`${base}/${encodeURIComponent(skill.name)}`, {
          method: 'PUT',
          body: { description: skill.description, content: skill.content },
        });
      toast(`Skill "${skill.name}" saved`, 'success');
      setEditing(null);
      await reload();
    } catch {
      // toasted
    }
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

  const change = (field: keyof Skill, value: string) =>
    editing && setEditing({ ...editing, skill: { ...editing.skill, [field]: value } });

  return (
    <div class="stack">
      <div class="toolbar">
        <p class="muted">Skills only this agent sees. It reads them with its <code>skill</code> tool.</p>
        <span class="spacer" />
        <button
          type="button"
          class="btn"
          onClick={() =>
            setEditing({ skill: { name: '', description: '', content: '', scope: 'local' }, isNew: true })
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
                onClick={() => setEditing({ skill, isNew: false })}
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
      <Dialog
        title={editing?.isNew ? 'New skill' : `Skill ${editing?.skill.name ?? ''}`}
        open={editing !== null}
        onClose={() => setEditing(null)}
        wide
        actions={
          <>
            <button type="button" class="btn" onClick={() => setEditing(null)}>
              Cancel
            </button>
            <button type="button" class="btn btn-primary" onClick={() => void save()}>
              Save
            </button>
          </>
        }
      >
        {editing && (
          <div class="stack">
            <label class="field">
              <span class="field-label">Name</span>
              <input
                class="input"
                value={editing.skill.name}
                disabled={!editing.isNew}
                onInput={(event) => change('name', event.currentTarget.value)}
              />
            </label>
            <label class="field">
              <span class="field-label">Description</span>
              <input
                class="input"
                value={editing.skill.description}
                onInput={(event) => change('description', event.currentTarget.value)}
              />
            </label>
            <label class="field">
              <span class="field-label">Content (Markdown)</span>
              <textarea
                class="input code-input"
                rows={12}
                value={editing.skill.content}
                onInput={(event) => change('content', event.currentTarget.value)}
              />
            </label>
          </div>
        )}
      </Dialog>
    </div>
  );
}
