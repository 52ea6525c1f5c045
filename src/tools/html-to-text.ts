const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  copy: '©',
  reg: '®',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
};

/**
 * Readable text from an HTML page, good enough for a model to read: drops scripts, styles and
 * comments, turns block elements into line breaks and list items into "- ", decodes entities.
 */
export function htmlToText(html: string): string {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/iu.exec(html)?.[1]?.trim();
  const text = html
    .replace(/<!--[\s\S]*?-->/gu, '')
    .replace(/<(script|style|noscript|template|svg|head)\b[\s\S]*?<\/\1\s*>/giu, '')
    .replace(/<li\b[^>]*>/giu, '\n- ')
    .replace(/<(br|hr)\b[^>]*>/giu, '\n')
    .replace(
      /<\/?(p|div|section|article|header|footer|nav|main|aside|h[1-6]|ul|ol|table|tr|blockquote|pre|form)\b[^>]*>/giu,
      '\n',
    )
    .replace(/<\/(td|th)\s*>/giu, '\t')
    .replace(/<[^>]*>/gu, '');
  const lines = decodeEntities(text)
    .split('\n')
    .map((line) => line.replace(/[ \t\f\v\u00a0]+/gu, ' ').trim());
  const body = lines
    .join('\n')
    .replace(/\n{3,}/gu, '\n\n')
    .trim();
  return title && !body.startsWith(decodeEntities(title)) ? `${decodeEntities(title)}\n\n${body}` : body;
}

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/giu, (entity, name: string) => {
    if (name.startsWith('#')) {
      const code =
        name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
    }
    return NAMED_ENTITIES[name.toLowerCase()] ?? entity;
  });
}
