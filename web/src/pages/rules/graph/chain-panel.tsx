// The panel beside the graph while no node is selected: the chain's id (a new chain's only), name
// and debug mode, the colours of a run, and how to work the graph with the keyboard.
import type { ChainDoc } from './chain-model.ts';

interface Props {
  doc: ChainDoc;
  isNew: boolean;
  onChange: (info: Partial<ChainDoc['ruleChain']>) => void;
}

export function ChainPanel({ doc, isNew, onChange }: Props) {
  const { ruleChain } = doc;
  return (
    <section class="graph-panel stack" aria-label="Chain settings">
      <h3 class="section-title">Chain</h3>
      <div class="form-grid">
        <div class="field">
          <label class="field-label" for="graph-chain-id">
            Chain id
          </label>
          <input
            id="graph-chain-id"
            class="input"
            value={ruleChain.id}
            disabled={!isNew}
            onInput={(event) => onChange({ id: event.currentTarget.value })}
          />
          {!isNew && <span class="field-help">A saved chain keeps its id.</span>}
        </div>
        <div class="field">
          <label class="field-label" for="graph-chain-name">
            Chain name
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
        Debug mode (keep a run log of every node)
      </label>
      <div class="graph-legend" aria-label="Run colours">
        <span class="graph-legend-item outcome-success">Success</span>
        <span class="graph-legend-item outcome-true">True</span>
        <span class="graph-legend-item outcome-false">False</span>
        <span class="graph-legend-item outcome-other">other relation</span>
        <span class="graph-legend-item outcome-failure">Failure</span>
      </div>
      <p class="muted graph-help">
        Add a node from the list of node types. Tab moves to the nodes; Enter or a click selects one and opens
        its form here; Delete removes the selected node or connection. Connect two nodes by dragging from a
        node's right edge to another node, or from the node's form.
      </p>
    </section>
  );
}
