// The node types to add, from the server's component list, by category with a search box. A click
// (or Enter) adds a node of that type to the graph and opens its form.
import { useState } from 'preact/hooks';
import type { ComponentInfo } from './components.ts';

interface Props {
  components: ComponentInfo[] | null;
  onAdd: (info: ComponentInfo) => void;
}

export function Palette({ components, onAdd }: Props) {
  const [query, setQuery] = useState('');
  if (components === null) return <p class="muted">Loading node types…</p>;
  const wanted = query.trim().toLowerCase();
  const shown = components.filter(
    (info) =>
      wanted === '' ||
      info.type.toLowerCase().includes(wanted) ||
      info.label.toLowerCase().includes(wanted) ||
      info.category.toLowerCase().includes(wanted),
  );
  const categories = [...new Set(shown.map((info) => info.category))].sort();
  return (
    <nav class="graph-palette" aria-label="Node types">
      <input
        class="input"
        type="search"
        aria-label="Find a node type"
        placeholder="Find a node type"
        value={query}
        onInput={(event) => setQuery(event.currentTarget.value)}
      />
      {shown.length === 0 && <p class="muted">No node type matches.</p>}
      {categories.map((category) => (
        <div key={category} class="graph-palette-group">
          <h4 class="graph-palette-title">{category}</h4>
          <ul>
            {shown
              .filter((info) => info.category === category)
              .map((info) => (
                <li key={info.type}>
                  <button
                    type="button"
                    class="graph-palette-item"
                    data-type={info.type}
                    title={info.desc || info.type}
                    aria-label={`Add ${info.type} node`}
                    onClick={() => onAdd(info)}
                  >
                    <span class="graph-palette-label">{info.label || info.type}</span>
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
