// Model output as HTML: Markdown (marked), code highlighted (highlight.js), then sanitized
// (DOMPurify) before it reaches the page. Remote images and inline styles are dropped: the CSP
// would refuse them anyway, and a refused load would only be noise.
import DOMPurify from 'dompurify';
import hljs from 'highlight.js/lib/common';
import { Marked } from 'marked';

const marked = new Marked({
  gfm: true,
  breaks: true,
  renderer: {
    code({ text, lang }) {
      const language = (lang ?? '').trim().split(/\s+/)[0] ?? '';
      const known = language !== '' && hljs.getLanguage(language) !== undefined;
      const highlighted = known
        ? hljs.highlight(text, { language, ignoreIllegals: true }).value
        : hljs.highlightAuto(text).value;
      const label = known ? language : '';
      return `<pre class="code-block"><code class="hljs${label ? ` language-${label}` : ''}">${highlighted}</code></pre>\n`;
    },
  },
});

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  // Links open in a new tab, without giving that page a handle on this one.
  if (node.tagName === 'A') {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});

export function renderMarkdown(text: string): string {
  const html = marked.parse(text, { async: false });
  return DOMPurify.sanitize(html, {
    FORBID_TAGS: ['style', 'img', 'form', 'input', 'button', 'iframe'],
    FORBID_ATTR: ['style'],
  });
}
