// The panel beside the graph while no node is selected: the chain's id (a new chain's only), name
// and debug mode, the colours of a run, and how to work the graph with the keyboard.
import { t } from '../../../i18n/index.ts';
import type { ChainDoc } from './chain-model.ts';

interface Props {
  doc: ChainDoc;
  isNew: boolean;
  onChange: (info: Partial<ChainDoc['ruleChain']>) => void;
}

interface EndpointView {
  id?: unknown;
  type?: unknown;
  routers?: Array<{ params?: unknown; from?: { path?: unknown } }>;
}

/** One line per router of each endpoint: its type, methods and path (a route, a cron, a topic). */
function endpointLines(doc: ChainDoc): string[] {
  const endpoints = Array.isArray(doc.metadata['endpoints'])
    ? (doc.metadata['endpoints'] as EndpointView[])
    : [];
  return endpoints.flatMap((endpoint) => {
    const type = String(endpoint.type ?? '').replace(/^endpoint\//, '');
    const routers = Array.isArray(endpoint.routers) ? endpoint.routers : [];
    if (routers.length === 0) return [`${type} ${String(endpoint.id ?? '')}`];
    return routers.map((router) => {
      const methods = Array.isArray(router.params) ? `${router.params.join(',')} ` : '';
      return `${type} ${methods}${String(router.from?.path ?? '')}`;
    });
  });
}

export function ChainPanel({ doc, isNew, onChange }: Props) {
  const { ruleChain } = doc;
  const endpoints = endpointLines(doc);
  return (
    <section class="graph-panel stack" aria-label={t('graph.chainAria')}>
      <h3 class="section-title">{t('graph.chain')}</h3>
      <div class="form-grid">
        <div class="field">
          <label class="field-label" for="graph-chain-id">
            {t('graph.chainId')}
          </label>
          <input
            id="graph-chain-id"
            class="input"
            value={ruleChain.id}
            disabled={!isNew}
            onInput={(event) => onChange({ id: event.currentTarget.value })}
          />
          {!isNew && <span class="field-help">{t('graph.keepsId')}</span>}
        </div>
        <div class="field">
          <label class="field-label" for="graph-chain-name">
            {t('graph.chainName')}
          </label>
          <input
            id="graph-chain-name"
            class="input"
            value={typeof ruleChain.name === 'string' ? ruleChain.name : ''}
            onInput={(event) => onChange({ name: event.currentTarget.value })}
          />
        </div>
      </div>
      <label class="inline-check">
        <input
          type="checkbox"
          checked={ruleChain.debugMode === true}
          onChange={(event) => onChange({ debugMode: event.currentTarget.checked })}
        />
        {t('graph.debug')}
      </label>
      {endpoints.length > 0 && (
        <div class="field">
          <span class="field-label">{t('graph.endpoints')}</span>
          <ul class="graph-connection-list" aria-label={t('graph.endpointsAria')}>
            {endpoints.map((line, index) => (
              <li key={index} class="mono">
                {line}
              </li>
            ))}
          </ul>
        </div>
      )}
      <div class="graph-legend" aria-label={t('graph.colours')}>
        <span class="graph-legend-item outcome-success">Success</span>
        <span class="graph-legend-item outcome-true">True</span>
        <span class="graph-legend-item outcome-false">False</span>
        <span class="graph-legend-item outcome-other">{t('graph.otherRelation')}</span>
        <span class="graph-legend-item outcome-failure">Failure</span>
      </div>
      <p class="muted graph-help">{t('graph.help')}</p>
    </section>
  );
}
