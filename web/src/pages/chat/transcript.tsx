// The conversation: user messages, assistant turns and compaction summaries (see messages.tsx for
// one message). A message found by search is scrolled to and marked.
import { useEffect, useRef } from 'preact/hooks';
import { t } from '../../i18n/index.ts';
import { renderMarkdown } from '../../markdown.ts';
import { Icon } from '../../ui/icons.tsx';
import type { ChatItem } from './chat-model.ts';
import { AssistantMessage, UserMessage, type MessageActions } from './messages.tsx';

interface Props extends MessageActions {
  items: ChatItem[];
  emptyText: string;
  /** A stored message to scroll to and mark (a search hit). */
  focusId?: number | undefined;
}

export function Transcript({ items, emptyText, focusId, ...actions }: Props) {
  const end = useRef<HTMLDivElement>(null);
  const log = useRef<HTMLDivElement>(null);
  const lastAssistant = [...items].reverse().find((item) => item.kind === 'assistant');
  useEffect(() => {
    const focused =
      focusId === undefined ? null : log.current?.querySelector(`[data-message-id="${focusId}"]`);
    if (focused) {
      focused.classList.add('message-found');
      focused.scrollIntoView({ block: 'center' });
    } else end.current?.scrollIntoView({ block: 'end' });
  }, [items, focusId]);
  if (items.length === 0)
    return (
      <div class="transcript empty-state">
        <p class="muted">{emptyText}</p>
      </div>
    );
  return (
    <div class="transcript" role="log" aria-label={t('chat.conversation')} ref={log}>
      {items.map((item) =>
        item.kind === 'summary' ? (
          <details key={item.id} class="compaction-summary" open>
            <summary>
              <Icon name="chat" /> {t('summary.text', { first: item.firstId, last: item.lastId })}
            </summary>
            <div class="markdown" dangerouslySetInnerHTML={{ __html: renderMarkdown(item.text) }} />
          </details>
        ) : item.kind === 'user' ? (
          <UserMessage key={item.id} item={item} actions={actions} />
        ) : (
          <AssistantMessage key={item.id} item={item} last={item === lastAssistant} actions={actions} />
        ),
      )}
      <div ref={end} />
    </div>
  );
}
