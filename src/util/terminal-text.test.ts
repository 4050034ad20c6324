// stripControls: what a terminal could act on is removed, text and layout stay.
import { describe, it, expect } from 'vitest';
import { stripControls } from './terminal-text.js';

describe('stripControls', () => {
  it('removes C0 (but newline and tab), DEL, lone ESC and C1 controls', () =>
    expect(stripControls('a\u001b]0;title\u0007b\u001b[2Jc\u009b31md\u0085e\u007ff\u0000g\u001bh\r\n\ti')).toBe('a]0;titleb[2Jc31mdefgh\n\ti'));
  it('removes bidirectional overrides and isolates, which reorder the text shown after them', () =>
    expect(stripControls('ok \u202eTXT\u202c \u2066x\u2069 done')).toBe('ok TXT x done'));
  it('keeps printable Unicode', () => expect(stripControls('naïve — 模型 🙂')).toBe('naïve — 模型 🙂'));
});
