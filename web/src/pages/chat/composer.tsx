// The message box: Enter sends, Shift+Enter starts a new line; pictures can be attached for vision
// models. What is typed is kept as a draft (see drafts.ts) until the server has it.
import { useRef } from 'preact/hooks';
import { t } from '../../i18n/index.ts';
import { toast } from '../../ui/toast.tsx';
import { Icon } from '../../ui/icons.tsx';
import type { Draft } from './drafts.ts';

/** The server's default body limit is 1 MiB; a picture's data: URL is a third larger than the file. */
const MAX_IMAGE_BYTES = 700 * 1024;

function readAsDataUrl(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error('cannot read the file'));
    reader.readAsDataURL(file);
  });
}

interface Props {
  draft: Draft;
  onDraft: (draft: Draft) => void;
  busy: boolean;
  disabled: string | null;
  onSend: () => void;
  onStop: () => void;
}

export function Composer({ draft, onDraft, busy, disabled, onSend, onStop }: Props) {
  const fileInput = useRef<HTMLInputElement>(null);
  const canSend = !busy && !disabled && (draft.text.trim() !== '' || draft.images.length > 0);

  const attach = async (files: FileList | null) => {
    const images = [...draft.images];
    for (const file of Array.from(files ?? [])) {
      if (!file.type.startsWith('image/')) {
        toast(t('composer.notPicture', { name: file.name }), 'error');
        continue;
      }
      if (file.size > MAX_IMAGE_BYTES) {
        toast(t('composer.tooLarge', { name: file.name }), 'error');
        continue;
      }
      images.push(await readAsDataUrl(file));
    }
    onDraft({ ...draft, images });
    if (fileInput.current) fileInput.current.value = '';
  };

  return (
    <form
      class="composer"
      onSubmit={(event) => {
        event.preventDefault();
        if (canSend) onSend();
      }}
    >
      {draft.images.length > 0 && (
        <div class="attachments composer-attachments">
          {draft.images.map((url, index) => (
            <span key={index} class="attachment">
              <img src={url} alt={t('composer.attachment', { n: index + 1 })} class="attachment-image" />
              <button
                type="button"
                class="attachment-remove"
                aria-label={t('composer.remove', { n: index + 1 })}
                onClick={() => onDraft({ ...draft, images: draft.images.filter((_, at) => at !== index) })}
              >
                ×
              </button>
            </span>
          ))}
        </div>
      )}
      {disabled && <p class="muted composer-note">{disabled}</p>}
      <div class="composer-row">
        <input
          ref={fileInput}
          type="file"
          accept="image/*"
          multiple
          class="visually-hidden"
          id="attach-input"
          tabIndex={-1}
          onChange={(event) => void attach(event.currentTarget.files)}
        />
        <button
          type="button"
          class="icon-btn"
          aria-label={t('composer.attach')}
          title={t('composer.attach.hint')}
          disabled={Boolean(disabled)}
          onClick={() => fileInput.current?.click()}
        >
          <Icon name="image" />
        </button>
        <textarea
          class="input composer-input"
          rows={1}
          placeholder={disabled ? '' : t('composer.placeholder')}
          aria-label={t('composer.message')}
          value={draft.text}
          disabled={Boolean(disabled)}
          onInput={(event) => onDraft({ ...draft, text: event.currentTarget.value })}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
              event.preventDefault();
              if (canSend) onSend();
            }
          }}
        />
        {busy ? (
          <button type="button" class="btn btn-danger" onClick={onStop} aria-label={t('composer.stop')}>
            <Icon name="stop" /> <span class="hide-narrow">{t('composer.stop')}</span>
          </button>
        ) : (
          <button type="submit" class="btn btn-primary" disabled={!canSend} aria-label={t('composer.send')}>
            <Icon name="send" /> <span class="hide-narrow">{t('composer.send')}</span>
          </button>
        )}
      </div>
    </form>
  );
}
