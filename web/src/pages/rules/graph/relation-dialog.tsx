// Asks for the relation of a connection drawn on the graph: one of the source type's relations (a
// button each) or any other name typed in. Esc or Cancel draws nothing.
import { useEffect, useState } from 'preact/hooks';
import { t, tParts } from '../../../i18n/index.ts';
import { Dialog, FormActions } from '../../../ui/dialog.tsx';

interface Props {
  /** The connection being drawn; null: the dialog is closed. */
  pending: { fromId: string; toId: string } | null;
  relations: string[];
  onConnect: (relation: string) => void;
  onClose: () => void;
}

export function RelationDialog({ pending, relations, onConnect, onClose }: Props) {
  const [relation, setRelation] = useState('');
  useEffect(() => setRelation(relations[0] ?? 'Success'), [pending?.fromId, pending?.toId]);
  return (
    <Dialog
      title={t('graph.relationTitle')}
      open={pending !== null}
      onClose={onClose}
      actions={<FormActions form="graph-relation-form" submitLabel={t('graph.connect')} onCancel={onClose} />}
    >
      {pending && (
        <form
          id="graph-relation-form"
          class="stack"
          onSubmit={(event) => {
            event.preventDefault();
            if (relation.trim()) onConnect(relation.trim());
          }}
        >
          <p>
            {tParts('graph.relationText', {
              from: <strong class="mono">{pending.fromId}</strong>,
              to: <strong class="mono">{pending.toId}</strong>,
            })}
          </p>
          <div class="graph-relation-choices" role="group" aria-label={t('graph.relationsAria')}>
            {relations.map((name) => (
              <button
                key={name}
                type="button"
                class={name === relation ? 'btn btn-primary' : 'btn'}
                aria-pressed={name === relation}
                onClick={() => onConnect(name)}
              >
                {name}
              </button>
            ))}
          </div>
          <label class="field">
            <span class="field-label">{t('graph.relation')}</span>
            <input
              class="input"
              value={relation}
              autoFocus
              onInput={(event) => setRelation(event.currentTarget.value)}
            />
            <span class="field-help">{t('graph.relationHelp')}</span>
          </label>
        </form>
      )}
    </Dialog>
  );
}
