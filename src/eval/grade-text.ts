// Text clean-up shared by the graders: the answer part of a reply (reasoning dropped) and normalized forms.

/**
 * The part of a reply that is graded: `<think>…</think>` blocks (reasoning sent inside the content) are dropped;
 * an unclosed `<think>` (the reply was cut off while reasoning) leaves nothing to grade.
 */
export function answerPart(text: string): string {
  let t = text.replace(/<think>[\s\S]*?<\/think>/gi, '');
  const open = t.search(/<think>/i);
  if (open >= 0) t = t.slice(0, open);
  // Models trained on a reasoning template sometimes emit only the closing tag.
  const close = t.lastIndexOf('</think>');
  if (close >= 0) t = t.slice(close + '</think>'.length);
  return t;
}

/** Full-width forms (Ａ, ：, （, ０-９) and the Unicode minus folded to ASCII, so one rule covers both. */
export function foldWidth(s: string): string {
  return s.replace(/[\uFF01-\uFF5E]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0)).replace(/[\u2212\u2012\u2013]/g, '-');
}

/** For exact and regex grading: trimmed, spaces collapsed, lowercase, one trailing period dropped. */
export function normalizeExact(s: string): string {
  return foldWidth(s).trim().replace(/\s+/g, ' ').replace(/\.$/, '').toLowerCase();
}
