import { describe, it, expect } from 'vitest';
import { escapeHtml, jsonForScript, scriptSafe } from './escape.js';

describe('escaping', () => {
  it('escapes markup characters in text and attributes', () => {
    expect(escapeHtml('<img src=x onerror="a()">&\'`')).toBe('&#60;img src=x onerror=&#34;a()&#34;&#62;&#38;&#39;&#96;');
    expect(escapeHtml(null)).toBe('');
  });
  it('embeds JSON that cannot close its script element and parses back unchanged', () => {
    const v = { s: '</script><script>alert(1)</script>', t: 'a\u2028b\u2029c & <!-- -->' };
    const j = jsonForScript(v);
    expect(j).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(j)).toEqual(v);
  });
  it('neutralises </script and <!-- in inline code', () => {
    expect(scriptSafe('var a="</SCRIPT>"; // <!--')).toBe('var a="<\\/SCRIPT>"; // <\\!--');
  });
});
