// The conversation: user messages, and assistant turns with their tool calls, Markdown answer,
// usage and actions (copy, retry).
import { useEffect, useRef } from 'preact/hooks';
import { renderMarkdown } from '../../markdown.ts';
import { Icon, IconButton } from '../../ui/icons.tsx';
import type { AssistantItem, ChatItem, ToolCallView } from './chat-model.ts';
import { formatJson } from './chat-model.ts';

const STATUS_LABEL = { running: 'running', done: 'done', failed: 'failed' } as const;

function ToolCall({ call }: { call: ToolCallView }) {
  return (
    <details class={`tool-call tool-${call.status}`} data-tool={call.name}>
      <summary>
        <Icon name="tool" />
        <span class="tool-name">{call.name}</span>
        {call.toolType && <span class="muted tool-type">{call.toolType}</span>}
        <span
          class={`badge badge-${call.status === 'done' ? 'ok' : call.status === 'failed' ? 'error' : 'warn'}`}
        >
          {call.status === 'running' && <span class="spinner" aria-hidden="true" />}
          {STATUS_LABEL[call.status]}
        </span>
      </summary>
      <div class="tool-body">
        <div class="tool-section-label">Arguments</div>
        <pre class="tool-pre">{formatJson(call.arguments) || '(none)'}</pre>
        {call.result !== undefined && (
          <>
            <div class="tool-section-label">Result</div>
            <pre class="tool-pre">{formatJson(call.result)}</pre>
          </>
        )}
      </div>
    </details>
  );
}

function Assistant({
  item,
  last,
  onRetry,
  onCopy,
}: {
  item: AssistantItem;
  last: boolean;
  /** Absent where the conversation cannot be continued (another channel's): no Retry then. */
  onRetry?: (() => void) | undefined;
  onCopy: (text: string) => void;
}) {
  const busy = item.status === 'streaming';
  return (
    <article
      class={`message message-assistant${item.folded ? ' message-folded' : ''}`}
      aria-busy={busy}
      data-status={item.status}
    >
      {item.tools.length > 0 && (
        <div class="tool-panel" aria-label="Tool calls">
          {item.tools.map((call) => (
            <ToolCall key={call.id} call={call} />
          ))}
        </div>
      )}
      {item.text ? (
        <div class="markdown" dangerouslySetInnerHTML={{ __html: renderMarkdown(item.text) }} />
      ) : (
        busy && (
          <div class="typing" aria-label="The agent is answering">
            <span />
            <span />
            <span />
          </div>
        )
      )}
      {item.status === 'stopped' && <p class="note muted">Stopped.</p>}
      {item.error && (
        <p class="note note-error" role="alert">
          {item.error}
        </p>
      )}
      {!busy && (
        <div class="message-footer">
          {item.usage && (
            <span class="usage muted" title="Tokens: prompt + completion = total">
              {item.usage.prompt} + {item.usage.completion} = {item.usage.total} tokens
            </span>
          )}
          <span class="spacer" />
          {item.text && (
            <IconButton icon="copy" label="Copy answer" title="Copy" onClick={() => onCopy(item.text)} />
          )}
          {last && onRetry && <IconButton icon="retry" label="Retry" title="Retry" onClick={onRetry} />}
        </div>
      )}
    </article>
  );
}

interface Props {
  items: ChatItem[];
  emptyText: string;
  onRetry?: (() => void) | undefined;
  onCopy: (text: string) => void;
}

export function Transcript({ items, emptyText, onRetry, onCopy }: Props) {
  const end = useRef<HTMLDivElement>(null);
  const lastAssistant = [...items].reverse().find((item) => item.kind === 'assistant');
  useEffect(() => {
    end.current?.scrollIntoView({ block: 'end' });
  }, [items]);
  if (items.length === 0)
    return (
      <div class="transcript empty-state">
        <p class="muted">{emptyText}</p>
      </div>
    );
  return (
    <div class="transcript" role="log" aria-label="Conversation">
      {items.map((item) =>
        item.kind === 'summary' ? (
          <details key={item.id} class="compaction-summary" open>
            <summary>
              <Icon name="chat" /> Compacted: messages {item.firstId}–{item.lastId} are summarised below; the
              model now sees this summary instead of them.
            </summary>
            <div class="markdown" dangerouslySetInnerHTML={{ __html: renderMarkdown(item.text) }} />
          </details>
        ) : item.kind === 'user' ? (
          <article
            key={item.id}
            class={`message message-user${item.folded ? ' message-folded' : ''}`}
            title={item.folded ? 'Compacted into a summary' : undefined}
          >
            {item.images.length > 0 && (
              <div class="attachments">
                {item.images.map((url, index) => (
                  <img key={index} src={url} alt={`attachment ${index + 1}`} class="attachment-image" />
                ))}
              </div>
            )}
            <div class="user-text">{item.text}</div>
            <div class="message-footer">
              <span class="spacer" />
              <IconButton icon="copy" label="Copy message" title="Copy" onClick={() => onCopy(item.text)} />
            </div>
          </article>
        ) : (
          <Assistant
            key={item.id}
            item={item}
            last={item === lastAssistant}
            onRetry={onRetry}
            onCopy={onCopy}
          />
        ),
      )}
      <div ref={end} />
    </div>
  );
}
