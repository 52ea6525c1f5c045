// The dialog that creates or edits one skill, on the Skills page and on an agent's Skills tab. A
// field the server refuses is shown under that field, in words; any other refusal above the form.
import { api } from '../../api.ts';
import { t } from '../../i18n/index.ts';
import { Dialog, FieldError, FormActions, FormError } from '../../ui/dialog.tsx';
import type { FormErrors } from '../../ui/form-errors.ts';

import type { Skill } from '@server/resources/skills/skills.schema.ts';

export type { Skill };

export interface SkillEdit {
  skill: Skill;
  isNew: boolean;
}

const FIELDS = ['name', 'description', 'content'] as const;

/**
 * Creates or updates the skill in `collection` (`query` places it: `{scope: 'global'}`); true when
 * saved, false when refused (the refusal is then in `errors`).
 */
export async function saveSkill(
  collection: string,
  { skill, isNew }: SkillEdit,
  errors: FormErrors,
  query: Record<string, string> = {},
): Promise<boolean> {
  errors.clear();
  try {
    if (isNew)
      await api(collection, {
        method: 'POST',
        body: { name: skill.name, description: skill.description, content: skill.content, ...query },
        quiet: true,
      });
    else
      await api(`${collection}/${encodeURIComponent(skill.name)}`, {
        method: 'PUT',
        query,
        body: { description: skill.description, content: skill.content },
        quiet: true,
      });
    return true;
  } catch (error) {
    errors.take(error, FIELDS);
    return false;
  }
}

export function SkillDialog({
  editing,
  errors,
  onChange,
  onClose,
  onSave,
}: {
  editing: SkillEdit | null;
  errors: FormErrors;
  onChange: (skill: Skill) => void;
  onClose: () => void;
  onSave: () => void;
}) {
  const skill = editing?.skill;
  return (
    <Dialog
      title={editing?.isNew ? t('skillDlg.new') : t('skillDlg.edit', { name: skill?.name ?? '' })}
      open={editing !== null}
      onClose={onClose}
      wide
      actions={<FormActions form="skill-form" submitLabel={t('skillDlg.save')} onCancel={onClose} />}
    >
      {editing && skill && (
        <form
          id="skill-form"
          class="stack"
          onSubmit={(event) => {
            event.preventDefault();
            onSave();
          }}
        >
          <FormError error={errors.general} />
          <label class="field">
            <span class="field-label">{t('skillDlg.name')}</span>
            <input
              class="input"
              required
              aria-label={t('skillDlg.name')}
              value={skill.name}
              disabled={!editing.isNew}
              aria-invalid={errors.of('name') !== undefined}
              onInput={(event) => onChange({ ...skill, name: event.currentTarget.value })}
            />
            <FieldError error={errors.of('name')} />
            <span class="field-help">
              1-64 letters, digits, "-" or "_". A skill cannot be renamed: copy it instead.
            </span>
          </label>
          <label class="field">
            <span class="field-label">{t('skillDlg.description')}</span>
            <input
              class="input"
              maxLength={1024}
              aria-label={t('skillDlg.description')}
              value={skill.description}
              aria-invalid={errors.of('description') !== undefined}
              onInput={(event) => onChange({ ...skill, description: event.currentTarget.value })}
            />
            <FieldError error={errors.of('description')} />
            <span class="field-help">{t('skillDlg.descriptionHelp')}</span>
          </label>
          <label class="field">
            <span class="field-label">{t('skillDlg.content')}</span>
            <textarea
              class="input code-input"
              rows={14}
              required
              aria-label={t('skillDlg.content')}
              value={skill.content}
              aria-invalid={errors.of('content') !== undefined}
              onInput={(event) => onChange({ ...skill, content: event.currentTarget.value })}
            />
            <FieldError error={errors.of('content')} />
          </label>
        </form>
      )}
    </Dialog>
  );
}
