// The selected node's editor beside the graph: id and name, its configuration as a form with the
// same configuration as JSON beside it (either one can be edited), its connections out (add one
// with a relation, remove one), make it the first node, delete it.
import { useEffect, useState } from 'preact/hooks';
import { t } from '../../../i18n/index.ts';
import { nodeText } from '../../../i18n/node-texts.ts';
import { Icon } from '../../../ui/icons.tsx';
import type { ChainDoc, DslNode, ErrorTarget } from './chain-model.ts';
import { connectionKey, connectionsOf } from './chain-model.ts';
import { relationsOf, type ComponentInfo } from './components.ts';
import { ConfigForm, JsonBox } from './config-form.tsx';

const NODE_ID = /^[A-Za-z0-9_-]{1,64}$/;

interface Props {
  doc: ChainDoc;
  node: DslNode;
  info: ComponentInfo | undefined;
  isFirst: boolean;
  error: Extract<ErrorTarget, { kind: 'node' }> | undefined;
  onUpdate: (previousId: string, next: DslNode) => void;
  onConnect: (fromId: string, toId: string, relation: string) => void;
  onRemoveConnections: (keys: Set<string>) => void;
  onMakeFirst: () => void;
  onDelete: () => void;
  onClose: () => void;
}

function IdField({ node, doc, onRename }: { node: DslNode; doc: ChainDoc; onRename: (id: string) => void }) {
  const [text, setText] = useState(node.id);
  useEffect(() => setText(node.id), [node.id]);
  const taken = text !== node.id && doc.metadata.nodes.some((other) => other.id === text);
  const problem = !NODE_ID.test(text) ? t('graph.badId') : taken ? t('graph.idTaken') : undefined;
  return (
    <div class="field">
      <label class="field-label" for="graph-node-id">
        {t('graph.nodeId')}
      </label>
      <input
        id="graph-node-id"
        class="input"
        value={text}
        aria-invalid={problem ? 'true' : undefined}
        onInput={(event) => setText(event.currentTarget.value)}
        onBlur={() => {
          if (!problem && text !== node.id) onRename(text);
        }}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && !problem && text !== node.id) onRename(text);
        }}
      />
      {problem && <span class="field-error">{problem}</span>}
      {!problem && JSON.stringify(node.configuration ?? {}).includes('"***"') && (
        <span class="field-help">{t('graph.secretRename')}</span>
      )}
    </div>
  );
}

function Connections({ doc, node, info, onConnect, onRemoveConnections }: Props) {
  const others = doc.metadata.nodes.filter((other) => other.id !== node.id);
  const relations = relationsOf(info);
  const [target, setTarget] = useState(others[0]?.id ?? '');
  const [relation, setRelation] = useState(relations[0] ?? 'Success');
  useEffect(() => {
    if (!others.some((other) => other.id === target)) setTarget(others[0]?.id ?? '');
  }, [others.map((other) => other.id).join(' ')]);
  const outgoing = connectionsOf(doc)
    .map((connection, index) => ({ connection, key: connectionKey(connection, index) }))
    .filter(({ connection }) => connection.fromId === node.id);
  return (
    <fieldset class="fieldset" aria-label={t('graph.connectionsOut')}>
      <legend>{t('graph.connectionsOut')}</legend>
      {outgoing.length === 0 ? (
        <p class="muted">{t('graph.noConnections')}</p>
      ) : (
        <ul class="graph-connection-list">
          {outgoing.map(({ connection, key }) => (
            <li key={key}>
              <span class="badge">{connection.type}</span> → <span class="mono">{connection.toId}</span>
              <button
                type="button"
                class="icon-btn"
                aria-label={t('graph.removeConnection', { relation: connection.type, to: connection.toId })}
                onClick={() => onRemoveConnections(new Set([key]))}
              >
                <Icon name="trash" />
              </button>
            </li>
          ))}
        </ul>
      )}
      {others.length > 0 && (
        <form
          class="graph-connect-form"
          onSubmit={(event) => {
            event.preventDefault();
            if (target && relation.trim()) onConnect(node.id, target, relation.trim());
          }}
        >
          <label class="field">
            <span class="field-label">{t('graph.relation')}</span>
            <input
              class="input"
              list="graph-relations"
              value={relation}
              onInput={(event) => setRelation(event.currentTarget.value)}
            />
            <datalist id="graph-relations">
              {relations.map((name) => (
                <option key={name} value={name} />
              ))}
            </datalist>
          </label>
          <label class="field">
            <span class="field-label">{t('graph.toNode')}</span>
            <select class="input" value={target} onChange={(event) => setTarget(event.currentTarget.value)}>
              {others.map((other) => (
                <option key={other.id} value={other.id}>
                  {other.name ? `${other.name} (${other.id})` : other.id}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" class="btn" disabled={!relation.trim() || !target}>
            {t('graph.connect')}
          </button>
        </form>
      )}
    </fieldset>
  );
}

export function NodePanel(props: Props) {
  const { node, info, isFirst, error, onUpdate, onMakeFirst, onDelete, onClose, doc } = props;
  const configuration = node.configuration ?? {};
  const setConfiguration = (next: Record<string, unknown> | undefined) =>
    onUpdate(node.id, { ...node, configuration: next ?? {} });
  return (
    <section
      class="graph-panel stack"
      aria-label={t('graph.nodePanel', { id: node.id })}
      data-panel-node={node.id}
    >
      <div class="toolbar">
        <h3 class="section-title">{info ? nodeText(info.label) : node.type}</h3>
        <span class="muted mono">{node.type}</span>
        <span class="spacer" />
        <button type="button" class="icon-btn" aria-label={t('graph.closeNode')} onClick={onClose}>
          <Icon name="close" />
        </button>
      </div>
      {!info && <p class="alert alert-error">{t('graph.unknownType', { type: node.type })}</p>}
      {info?.desc && <p class="muted">{nodeText(info.desc)}</p>}
      {error && (
        <div class="alert alert-error" role="alert">
          {error.detail}
        </div>
      )}
      <div class="form-grid">
        <IdField node={node} doc={doc} onRename={(id) => onUpdate(node.id, { ...node, id })} />
        <div class="field">
          <label class="field-label" for="graph-node-name">
            {t('graph.name')}
          </label>
          <input
            id="graph-node-name"
            class="input"
            value={node.name ?? ''}
            onInput={(event) => onUpdate(node.id, { ...node, name: event.currentTarget.value })}
          />
        </div>
      </div>
      <div class="graph-config">
        <div class="graph-config-fields">
          <h4 class="field-label">{t('graph.configuration')}</h4>
          <ConfigForm
            fields={info?.fields ?? []}
            value={configuration}
            onChange={setConfiguration}
            fieldError={error?.field ? { field: error.field, message: error.fieldDetail } : undefined}
            idPrefix={`graph-config-${node.id}`}
          />
        </div>
        <div class="graph-config-json field">
          <label class="field-label" for="graph-config-json">
            {t('graph.configurationJson')}
          </label>
          <JsonBox
            id="graph-config-json"
            label={t('graph.configurationJson')}
            rows={12}
            value={configuration}
            onChange={(next) =>
              setConfiguration(
                next && typeof next === 'object' ? (next as Record<string, unknown>) : undefined,
              )
            }
          />
        </div>
      </div>
      <Connections {...props} />
      <div class="toolbar">
        {isFirst ? (
          <span class="badge">{t('graph.firstNode')}</span>
        ) : (
          <button type="button" class="btn" onClick={onMakeFirst}>
            {t('graph.makeFirst')}
          </button>
        )}
        <span class="spacer" />
        <button type="button" class="btn btn-danger" onClick={onDelete}>
          <Icon name="trash" /> {t('graph.deleteNode')}
        </button>
      </div>
    </section>
  );
}
