// The agent's memory: its memory files (MEMORY.md and the dated notes in memory/), and keyword
// search over them with the query's words highlighted in each hit.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { t } from '../../i18n/index.ts';
import { href } from '../../router.ts';
import type { MemoryFilesAnswer, MemorySearchAnswer } from '@server/resources/memory/memory.schema.ts';

type MemoryFile = MemoryFilesAnswer['files'][number];

type Hit = MemorySearchAnswer['results'][number];

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
    api<MemoryFilesAnswer>(`${base}/files`).then(
      (answer) => setFiles(answer.files),
      () => setFiles([]),
    );
  }, [base]);

  const search = async (event: Event) => {
    event.preventDefault();
    const q = query.trim();
    if (!q) return;
    try {
      const answer = await api<MemorySearchAnswer>(`${base}/search`, { query: { q, limit: '20' } });
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
          aria-label={t('memory.searchAria')}
          type="search"
          placeholder={t('memory.searchPlaceholder')}
          value={query}
          onInput={(event) => setQuery((event.target as HTMLInputElement).value)}
        />
        <button type="submit" class="primary">
          {t('memory.search')}
        </button>
      </form>
      {hits && (
        <section aria-label={t('memory.results')}>
          {hits.results.length === 0 ? (
            <p class="muted">{t('memory.nothing', { query: hits.query })}</p>
          ) : (
            <ol class="memory-hits">
              {hits.results.map((hit) => (
                <li key={`${hit.path}:${hit.startLine}`}>
                  <div class="memory-hit-head">
                    <code>
                      {hit.path}:{hit.startLine}
                      {hit.endLine > hit.startLine ? `-${hit.endLine}` : ''}
                    </code>
                    <span class="muted">{t('memory.score', { score: hit.score.toFixed(2) })}</span>
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
      <h3>{t('memory.files')}</h3>
      {files === null ? (
        <p class="muted">{t('memory.loading')}</p>
      ) : files.length === 0 ? (
        <p class="muted">
          {t('memory.empty')} <a href={href('agents', agentId, 'workspace')}>{t('memory.workspace')}</a>.
        </p>
      ) : (
        <table class="memory-files">
          <thead>
            <tr>
              <th>{t('memory.file')}</th>
              <th>{t('memory.size')}</th>
              <th>{t('memory.modified')}</th>
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
