// Text from a server (model ids, error bodies, finish reasons) made inert before it reaches a terminal.

/**
 * Remove every C0 control character except newline and tab, DEL, and every C1 control (U+0080–U+009F, which
 * some terminals read as CSI/OSC): an OSC title or `ESC[2J` loses its ESC and is printed as plain text. Bidirectional
 * overrides and isolates (U+202A–U+202E, U+2066–U+2069) go too: they reorder what is shown after them.
 */
export function stripControls(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '');
}
