// Making untrusted text safe in HTML: escaping for element text and attributes, and JSON that cannot leave its <script>.

/** Escape text for an HTML element body or a quoted attribute value. */
export function escapeHtml(s: unknown): string {
  return String(s ?? '').replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * JSON for an inline `<script type="application/json">`: `<`, `>`, `&` and U+2028/U+2029 become \\u escapes, so no
 * string in the data (a server's "</script><script>…") can close the element or start markup; JSON.parse restores them.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Inline JavaScript source made safe inside <script>: no "</script" or "<!--" can appear literally. */
export function scriptSafe(js: string): string {
  return js.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}
