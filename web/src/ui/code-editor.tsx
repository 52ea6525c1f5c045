// A plain-text code editor: a textarea with line numbers, and a band over a range of lines (where an
// error is). No editor library: lines never wrap, so line N sits at N * LINE_HEIGHT.
import { useEffect, useRef, useState } from 'preact/hooks';

/** Must match .code-area's line-height and padding in manage.css. */
const LINE_HEIGHT = 20;
const PADDING_TOP = 8;

export interface LineRange {
  /** 1-based, inclusive. */
  from: number;
  to: number;
}

export interface CodeEditorProps {
  value: string;
  onInput: (value: string) => void;
  label: string;
  /** Lines to mark (an error's node). */
  marked?: LineRange | null;
  /** Moves the caret to this line when `reveal.seq` changes. */
  reveal?: { line: number; seq: number } | null;
  rows?: number;
}

function offsetOfLine(text: string, line: number): number {
  let offset = 0;
  for (let current = 1; current < line; current++) {
    const next = text.indexOf('\n', offset);
    if (next < 0) return text.length;
    offset = next + 1;
  }
  return offset;
}

export function CodeEditor({ value, onInput, label, marked, reveal, rows = 24 }: CodeEditorProps) {
  const area = useRef<HTMLTextAreaElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const lineCount = value.split('\n').length;

  useEffect(() => {
    const textarea = area.current;
    if (!reveal || !textarea) return;
    const start = offsetOfLine(value, reveal.line);
    const lineEnd = value.indexOf('\n', start);
    textarea.focus();
    textarea.setSelectionRange(start, lineEnd < 0 ? value.length : lineEnd);
    textarea.scrollTop = Math.max(0, (reveal.line - 3) * LINE_HEIGHT);
    setScrollTop(textarea.scrollTop);
  }, [reveal?.seq]);

  return (
    <div class="code-editor" style={{ '--code-rows': String(rows) }}>
      <div class="code-gutter" aria-hidden="true" style={{ width: `${String(lineCount).length + 3}ch` }}>
        <div class="code-gutter-lines" style={{ transform: `translateY(${-scrollTop}px)` }}>
          {Array.from({ length: lineCount }, (_, index) => {
            const line = index + 1;
            const isMarked = marked && line >= marked.from && line <= marked.to;
            return (
              <div key={line} class={isMarked ? 'code-line-number marked' : 'code-line-number'}>
                {line}
              </div>
            );
          })}
        </div>
      </div>
      <div class="code-body">
        {marked && (
          <div
            class="code-mark"
            aria-hidden="true"
            style={{
              top: `${PADDING_TOP + (marked.from - 1) * LINE_HEIGHT - scrollTop}px`,
              height: `${(marked.to - marked.from + 1) * LINE_HEIGHT}px`,
            }}
          />
        )}
        <textarea
          ref={area}
          class="code-area"
          aria-label={label}
          aria-invalid={marked ? 'true' : undefined}
          spellcheck={false}
          autoCapitalize="off"
          autoComplete="off"
          wrap="off"
          value={value}
          onInput={(event) => onInput(event.currentTarget.value)}
          onScroll={(event) => setScrollTop(event.currentTarget.scrollTop)}
          onKeyDown={(event) => {
            // Tab indents by two spaces; Esc then Tab leaves the editor (keyboard users are not trapped).
            if (event.key !== 'Tab' || event.shiftKey || event.altKey || event.ctrlKey || event.metaKey)
              return;
            const textarea = event.currentTarget;
            if (textarea.dataset['escaped'] === 'true') return;
            event.preventDefault();
            const { selectionStart, selectionEnd } = textarea;
            const next = `${value.slice(0, selectionStart)}  ${value.slice(selectionEnd)}`;
            onInput(next);
            requestAnimationFrame(() => textarea.setSelectionRange(selectionStart + 2, selectionStart + 2));
          }}
          onKeyUp={(event) => {
            if (event.key === 'Escape') event.currentTarget.dataset['escaped'] = 'true';
          }}
          onFocus={(event) => {
            event.currentTarget.dataset['escaped'] = 'false';
          }}
        />
      </div>
    </div>
  );
}
