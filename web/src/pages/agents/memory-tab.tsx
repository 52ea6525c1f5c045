// The agent's memory: its memory files (MEMORY.md and the dated notes in memory/), and keyword
// search over them with the query's words highlighted in each hit.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { href } from '../../router.ts';

interface MemoryFile {
  path: string;
  size: number;
  modifiedAt: string;
}

interface Hit {
  path: string;
  startLine: number;
  endLine: number;
  score: number;
  snippet: string;
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/** The query's words (and identifiers), longest first, to mark in the hits. */
function markTerms(query: string): string[] {
  const words = query
    .split(/[\s,.;:!?()"']+/)
    .filter((word) => word.length > 2 || (word.length > 1 && CJK.test(word)));
  return [...new Set(words)].sort((a, b) => b.length - a.length);
}

/** The snippet as text with the query's words wrapped in <mark>, without any HTML of its own. */
export function Highlighted({ text, terms }: { text: string; terms: string[] }) {
  if (terms.length === 0) return <>{text}</>;
  const escaped = terms.map((term) => term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const parts = text.split(new RegExp(`(${escaped.join('|')})`, 'giu'));
  return <>{parts.map((part, index) => (index % 2 === 1 ? <mark key={index}>{part}</mark> : part))}</>;
}

export function MemoryTab({ agentId }: { agentId: string }) {
  const base = `/agents/${encodeURIComponent(agentId)}/memory`;
  const [files, setFiles] = useState<MemoryFile[] | null>(null);
  const [query, setQuery] = useState('');
  const [hits, setHits] = useState<{ query: string; results: Hit[] } | null>(null);

  useEffect(() => {
    api<{ files: MemoryFile[] }>(`${base}/files`).then(
      (answer) => setFiles(answer.files),
      () => setFiles([]),
    );
  }, [base]);

  const search = async (event: Event) => {
    event.preventDefault();
    const q = query.trim();
    if (!q) return;
    try {
      const answer = await api<{ results: Hit[] }>(`${base}/search`, { query: { q, limit: '20' } });
      setHits({ query: q, results: answer.results });
    } catch {
      // toasted
    }
  };

  const terms = hits ? markTerms(hits.query) : [];
  return (
    <div class="memory-tab">
      <form class="memory-search" role="search" onSubmit={search}>
        <input
          aria-label="Search memory"
          type="search"
          placeholder="Search memory: names, order numbers, topics…"
          value={query}
          onInput={(event) => setQuery((event.target as HTMLInputElement).value)}
        />
        <button type="submit" class="primary">
          Search
        </button>
      </form>
      {hits && (
        <section aria-label="Search results">
          {hits.results.length === 0 ? (
            <p class="muted">Nothing in memory matches “{hits.query}”.</p>
          ) : (
            <ol class="memory-hits">
              {hits.results.map((hit) => (
                <li key={`${hit.path}:${hit.startLine}`}>
                  <div class="memory-hit-head">
                    <code>
                      {hit.path}:{hit.startLine}
                      {hit.endLine > hit.startLine ? `-${hit.endLine}` : ''}
                    </code>
                    <span class="muted">score {hit.score.toFixed(2)}</span>
                  </div>
                  <pre class="memory-snippet">
                    <Highlighted text={hit.snippet} terms={terms} />
                  </pre>
                </li>
              ))}
            </ol>
          )}
        </section>
      )}
      <h3>Memory files</h3>
      {files === null ? (
        <p class="muted">Loading…</p>
      ) : files.length === 0 ? (
        <p class="muted">
          No memory files yet. The agent writes them with its memory_write tool (before each compaction too);
          you can add MEMORY.md or memory/YYYY-MM-DD.md in the{' '}
          <a href={href('agents', agentId, 'workspace')}>workspace</a>.
        </p>
      ) : (
        <table class="memory-files">
          <thead>
            <tr>
              <th>File</th>
              <th>Size</th>
              <th>Modified</th>
            </tr>
          </thead>
          <tbody>
            {files.map((file) => (
              <tr key={file.path}>
                <td>
                  <code>{file.path}</code>
                </td>
                <td>{file.size} B</td>
                <td>{new Date(file.modifiedAt).toLocaleString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
