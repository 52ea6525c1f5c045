// The node types to add, from the server's component list, by category with a search box. A click
// (or Enter) adds a node of that type to the graph and opens its form.
import { useState } from 'preact/hooks';
import { t } from '../../../i18n/index.ts';
import { nodeText } from '../../../i18n/node-texts.ts';
import type { ComponentInfo } from './components.ts';

interface Props {
  components: ComponentInfo[] | null;
  onAdd: (info: ComponentInfo) => void;
}

export function Palette({ components, onAdd }: Props) {
  const [query, setQuery] = useState('');
  if (components === null) return <p class="muted">{t('graph.loadingTypes')}</p>;
  const wanted = query.trim().toLowerCase();
  const shown = components.filter(
    (info) =>
      wanted === '' ||
      info.type.toLowerCase().includes(wanted) ||
      info.label.toLowerCase().includes(wanted) ||
      nodeText(info.label).toLowerCase().includes(wanted) ||
      info.category.toLowerCase().includes(wanted) ||
      nodeText(info.category).toLowerCase().includes(wanted),
  );
  const categories = [...new Set(shown.map((info) => info.category))].sort();
  return (
    <nav class="graph-palette" aria-label={t('graph.types')}>
      <input
        class="input"
        type="search"
        aria-label={t('graph.findType')}
        placeholder={t('graph.findType')}
        value={query}
        onInput={(event) => setQuery(event.currentTarget.value)}
      />
      {shown.length === 0 && <p class="muted">{t('graph.noType')}</p>}
      {categories.map((category) => (
        <div key={category} class="graph-palette-group">
          <h4 class="graph-palette-title">{nodeText(category)}</h4>
          <ul>
            {shown
              .filter((info) => info.category === category)
              .map((info) => (
                <li key={info.type}>
                  <button
                    type="button"
                    class="graph-palette-item"
                    data-type={info.type}
                    title={info.desc ? nodeText(info.desc) : info.type}
                    aria-label={t('graph.addType', { type: info.type })}
                    onClick={() => onAdd(info)}
                  >
                    <span class="graph-palette-label">{nodeText(info.label) || info.type}</span>
                    <span class="muted mono">{info.type}</span>
                  </button>
                </li>
              ))}
          </ul>
        </div>
      ))}
    </nav>
  );
}
