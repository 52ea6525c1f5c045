// One message of the transcript: the user's (copy, edit and resend) and an assistant turn (tool
// calls, Markdown answer, usage, copy, regenerate), each with its versions switch ("< 2 / 3 >")
// when it has been edited or regenerated.
import { useState } from 'preact/hooks';
import { t } from '../../i18n/index.ts';
import { renderMarkdown } from '../../markdown.ts';
import { Icon, IconButton } from '../../ui/icons.tsx';
import type { AssistantItem, Stored, ToolCallView, UserItem } from './chat-model.ts';
import { formatJson } from './chat-model.ts';

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
          {t(`tool.${call.status}`)}
        </span>
      </summary>
      <div class="tool-body">
        <div class="tool-section-label">{t('tool.arguments')}</div>
        <pre class="tool-pre">{formatJson(call.arguments) || t('tool.none')}</pre>
        {call.result !== undefined && (
          <>
            <div class="tool-section-label">{t('tool.result')}</div>
            <pre class="tool-pre">{formatJson(call.result)}</pre>
          </>
        )}
      </div>
    </details>
  );
}

/** "< 2 / 3 >": the versions of a message; switching shows that version's branch. */
export function Versions({
  item,
  disabled,
  onSwitch,
}: {
  item: Stored;
  disabled: boolean;
  onSwitch?: ((messageId: number) => void) | undefined;
}) {
  const ids = item.siblingIds;
  if (!ids || ids.length < 2 || item.messageId === undefined) return null;
  const index = ids.indexOf(item.messageId);
  const go = (at: number) => {
    const target = ids[at];
    if (target !== undefined) onSwitch?.(target);
  };
  return (
    <span class="versions" role="group" aria-label={t('versions.label')}>
      <button
        type="button"
        class="icon-btn version-btn"
        aria-label={t('versions.previous')}
        title={t('versions.previous')}
        disabled={disabled || !onSwitch || index <= 0}
        onClick={() => go(index - 1)}
      >
        ‹
      </button>
      <span class="version-count">{t('versions.of', { index: index + 1, count: ids.length })}</span>
      <button
        type="button"
        class="icon-btn version-btn"
        aria-label={t('versions.next')}
        title={t('versions.next')}
        disabled={disabled || !onSwitch || index >= ids.length - 1}
        onClick={() => go(index + 1)}
      >
        ›
      </button>
    </span>
  );
}

export interface MessageActions {
  onCopy: (text: string) => void;
  /** Absent where the conversation cannot be continued (another channel's). */
  onRegenerate?: (() => void) | undefined;
  onEdit?: ((item: UserItem, text: string) => void) | undefined;
  onSwitch?: ((messageId: number) => void) | undefined;
  /** A turn is running: nothing else may start. */
  busy: boolean;
}

export function UserMessage({ item, actions }: { item: UserItem; actions: MessageActions }) {
  const [editing, setEditing] = useState<string | null>(null);
  const { onEdit, busy } = actions;
  const editable = onEdit !== undefined && item.parentId !== undefined;
  const submit = () => {
    if (editing === null || editing.trim() === '' || busy) return;
    onEdit?.(item, editing);
    setEditing(null);
  };
  return (
    <article
      class={`message message-user${item.folded ? ' message-folded' : ''}`}
      title={item.folded ? t('user.folded') : undefined}
      data-message-id={item.messageId}
    >
      {item.images.length > 0 && (
        <div class="attachments">
          {item.images.map((url, index) => (
            <img
              key={index}
              src={url}
              alt={t('composer.attachment', { n: index + 1 })}
              class="attachment-image"
            />
          ))}
        </div>
      )}
      {editing === null ? (
        <div class="user-text">{item.text}</div>
      ) : (
        <form
          class="message-edit"
          onSubmit={(event) => {
            event.preventDefault();
            submit();
          }}
        >
          <textarea
            class="input message-edit-input"
            aria-label={t('user.edit.label')}
            value={editing}
            rows={Math.min(8, Math.max(2, editing.split('\n').length))}
            onInput={(event) => setEditing(event.currentTarget.value)}
            onKeyDown={(event) => {
              if (event.key === 'Escape') {
                event.stopPropagation();
                setEditing(null);
              } else if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
                event.preventDefault();
                submit();
              }
            }}
          />
          <p class="muted message-edit-hint">{t('user.edit.hint')}</p>
          <div class="message-edit-actions">
            <button type="button" class="btn" onClick={() => setEditing(null)}>
              {t('common.cancel')}
            </button>
            <button type="submit" class="btn btn-primary" disabled={busy || editing.trim() === ''}>
              {t('user.edit.send')}
            </button>
          </div>
        </form>
      )}
      <div class="message-footer">
        <Versions item={item} disabled={busy} onSwitch={actions.onSwitch} />
        <span class="spacer" />
        {editable && editing === null && (
          <IconButton
            icon="edit"
            label={t('user.edit.label')}
            title={t('user.edit')}
            disabled={busy}
            onClick={() => setEditing(item.text)}
          />
        )}
        <IconButton
          icon="copy"
          label={t('user.copy')}
          title={t('common.copy')}
          onClick={() => actions.onCopy(item.text)}
        />
      </div>
    </article>
  );
}

export function AssistantMessage({
  item,
  last,
  actions,
}: {
  item: AssistantItem;
  last: boolean;
  actions: MessageActions;
}) {
  const streaming = item.status === 'streaming';
  const { onRegenerate } = actions;
  return (
    <article
      class={`message message-assistant${item.folded ? ' message-folded' : ''}`}
      aria-busy={streaming}
      data-status={item.status}
      data-message-id={item.messageId}
    >
      {item.tools.length > 0 && (
        <div class="tool-panel" aria-label={t('tool.calls')}>
          {item.tools.map((call) => (
            <ToolCall key={call.id} call={call} />
          ))}
        </div>
      )}
      {item.text ? (
        <div class="markdown" dangerouslySetInnerHTML={{ __html: renderMarkdown(item.text) }} />
      ) : (
        streaming && (
          <div class="typing" aria-label={t('answer.typing')}>
            <span />
            <span />
            <span />
          </div>
        )
      )}
      {item.status === 'stopped' && <p class="note muted">{t('answer.stopped')}</p>}
      {item.error && (
        <p class="note note-error" role="alert">
          {item.error}
        </p>
      )}
      {!streaming && (
        <div class="message-footer">
          <Versions item={item} disabled={actions.busy} onSwitch={actions.onSwitch} />
          {item.usage && (
            <span class="usage muted" title={t('answer.tokens.hint')}>
              {t('answer.tokens', {
                prompt: item.usage.prompt,
                completion: item.usage.completion,
                total: item.usage.total,
              })}
            </span>
          )}
          <span class="spacer" />
          {item.text && (
            <IconButton
              icon="copy"
              label={t('answer.copy')}
              title={t('common.copy')}
              onClick={() => actions.onCopy(item.text)}
            />
          )}
          {last && onRegenerate && (
            <IconButton
              icon="retry"
              label={t('answer.regenerate')}
              title={t('answer.regenerate.hint')}
              disabled={actions.busy}
              onClick={onRegenerate}
            />
          )}
        </div>
      )}
    </article>
  );
}
