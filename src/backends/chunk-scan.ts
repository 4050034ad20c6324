// The per-stream fast path of classifyData (openai-common.ts): a content chunk read by comparing it with the last one.
//
// Almost every event of a stream is one content chunk, and consecutive chunks of one stream differ only in the
// content string:
//   {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"tok"},"finish_reason":null}]}
// JSON.parse builds that whole tree (5 objects, an array, a string per value) to read one field of it. Here a
// stream's chunk is first read by a scanner that validates it as JSON and notes where the content string lies; the
// text before and after it becomes the stream's template. A later chunk that is the template with other content
// (a content without `"`, `\` or control characters, so the JSON around it reads exactly as before) is answered with
// two string comparisons and one slice. Anything else is scanned again (and may become the new template); what
// the scanner is not certain to read exactly as JSON.parse + classifyData would (an error or usage that is not
// null, a repeated or escaped key, a control character, odd types, malformed JSON) goes to the full parse. Every
// answer equals the full parse's on the same bytes (chunk-scan.test.ts).
import type { ChunkInfo } from './backend.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
/** Any control character: JSON forbids them raw inside strings; outside strings only 4 are whitespace. */
const CONTROL = /[\u0000-\u001f]/;
/** Deeper nesting than this is left to the full parse (keeps the skipper's recursion small). */
const MAX_DEPTH = 32;

/** Thrown inside the scanner to give up; caught once at the top (made once: throwing it builds no stack). */
const GIVE_UP = new Error('not a plain chunk');

const NONE: readonly string[] = [];
const TOP = ['choices', 'error', 'usage', 'object'];
const CHOICE = ['delta', 'message', 'text', 'finish_reason'];
// tool_calls: classifyData counts a tool call's name and arguments as answer text; the full parse reads them.
const DELTA = ['content', 'reasoning_content', 'reasoning', 'tool_calls'];

class Scanner {
  i = 0;
  /** Where the content string of the last delta/message read lies: [start, end) inside its quotes. */
  contentAt = -1;
  contentEnd = -1;
  /** The next backslash at or after `i` (or -1): strings before it need no unescaping. */
  private bs: number;
  constructor(readonly s: string) {
    this.bs = s.indexOf('\\');
  }

  ws(): void {
    const s = this.s;
    // No control characters are in the text (checked first): only the space is left as whitespace.
    while (s.charCodeAt(this.i) === 0x20) this.i++;
  }

  expect(c: number): void {
    this.ws();
    if (this.s.charCodeAt(this.i) !== c) throw GIVE_UP;
    this.i++;
  }

  /** Whether a backslash lies in [from, to). */
  private escaped(from: number, to: number): boolean {
    if (this.bs >= 0 && this.bs < from) this.bs = this.s.indexOf('\\', from);
    return this.bs >= 0 && this.bs < to;
  }

  /** At a `"`: the string's value. Escapes are decoded by JSON.parse of the literal (which also validates them). */
  string(): string {
    const s = this.s;
    const start = this.i + 1;
    const q = s.indexOf('"', start);
    if (q < 0) throw GIVE_UP;
    if (!this.escaped(start, q)) {
      this.i = q + 1;
      return s.slice(start, q);
    }
    let j = start;
    for (;;) {
      const c = s.charCodeAt(j);
      if (Number.isNaN(c)) throw GIVE_UP;
      if (c === BACKSLASH) j += 2;
      else if (c === QUOTE) break;
      else j++;
    }
    this.i = j + 1;
    return JSON.parse(s.slice(start - 1, j + 1)) as string;
  }

  /**
   * A key, matched in place against `names` (no string is made): its index there, or -1 for any other key.
   * A key with escapes gives up (it could spell one of the names).
   */
  key(names: readonly string[]): number {
    this.ws();
    const s = this.s;
    if (s.charCodeAt(this.i) !== QUOTE) throw GIVE_UP;
    const start = this.i + 1;
    const q = s.indexOf('"', start);
    if (q < 0 || this.escaped(start, q)) throw GIVE_UP;
    const len = q - start;
    let found = -1;
    for (let n = 0; n < names.length; n++) {
      if (names[n].length === len && s.startsWith(names[n], start)) {
        found = n;
        break;
      }
    }
    this.i = q + 1;
    this.expect(COLON);
    this.ws();
    return found;
  }

  /** After a member or element: true at `,` (another follows), false at `close` (consumed). */
  next(close: number): boolean {
    this.ws();
    const c = this.s.charCodeAt(this.i++);
    if (c === COMMA) return true;
    if (c === close) return false;
    throw GIVE_UP;
  }

  /** `{`: consumes it; true when the object is empty (its `}` consumed too). */
  open(open: number, close: number): boolean {
    this.expect(open);
    this.ws();
    if (this.s.charCodeAt(this.i) === close) {
      this.i++;
      return true;
    }
    return false;
  }

  /** The value's type by its first character: s(tring), o(bject), a(rray), n(ull), or v for any other. */
  peek(): string {
    const c = this.s.charCodeAt(this.i);
    return c === QUOTE ? 's' : c === LBRACE ? 'o' : c === LBRACKET ? 'a' : c === 0x6e ? 'n' : 'v';
  }

  /** Any value, validated and dropped. */
  skip(depth = 0): void {
    if (depth > MAX_DEPTH) throw GIVE_UP;
    this.ws();
    const s = this.s;
    const c = s.charCodeAt(this.i);
    if (c === QUOTE) this.string();
    else if (c === LBRACE) {
      if (this.open(LBRACE, RBRACE)) return;
      do {
        this.key(NONE);
        this.skip(depth + 1);
      } while (this.next(RBRACE));
    } else if (c === LBRACKET) {
      if (this.open(LBRACKET, RBRACKET)) return;
      do this.skip(depth + 1);
      while (this.next(RBRACKET));
    } else if (c === 0x6e) this.word('null');
    else if (c === 0x74) this.word('true');
    else if (c === 0x66) this.word('false');
    else this.number();
  }

  private word(w: string): void {
    if (!this.s.startsWith(w, this.i)) throw GIVE_UP;
    this.i += w.length;
  }

  /** -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
  private number(): void {
    const s = this.s;
    let i = this.i;
    if (s.charCodeAt(i) === 0x2d) i++;
    const first = s.charCodeAt(i);
    if (first === 0x30) i++;
    else if (first >= 0x31 && first <= 0x39) i = this.digits(i);
    else throw GIVE_UP;
    if (s.charCodeAt(i) === 0x2e) {
      const j = this.digits(i + 1);
      if (j === i + 1) throw GIVE_UP;
      i = j;
    }
    const e = s.charCodeAt(i);
    if (e === 0x65 || e === 0x45) {
      i++;
      const sign = s.charCodeAt(i);
      if (sign === 0x2b || sign === 0x2d) i++;
      const j = this.digits(i);
      if (j === i) throw GIVE_UP;
      i = j;
    }
    this.i = i;
  }

  private digits(i: number): number {
    const s = this.s;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c < 0x30 || c > 0x39 || Number.isNaN(c)) return i;
      i++;
    }
  }
}

/** What one choice adds: text of `delta` (or `message`), `text`, and `finish_reason`. */
function scanChoice(sc: Scanner, info: ChunkInfo): void {
  sc.ws();
  if (sc.peek() !== 'o') throw GIVE_UP; // null or other non-objects are skipped by the full parse: rare, leave to it
  if (sc.open(LBRACE, RBRACE)) return;
  let delta: [string, string, number, number] | null | undefined; // see scanDelta; null: present but not an object
  let message: [string, string, number, number] | null | undefined;
  let text: string | undefined;
  let textAt = -1;
  let textEnd = -1;
  let seen = 0;
  do {
    const k = sc.key(CHOICE);
    const bit = k < 0 ? 0 : 1 << k; // delta 1, message 2, text 4, finish_reason 8
    if (bit & seen) throw GIVE_UP; // JSON.parse keeps the last of a repeated key: not worth reproducing
    seen |= bit;
    const t = sc.peek();
    if (bit === 1 || bit === 2) {
      if (t === 'n') sc.skip();
      else if (t !== 'o') throw GIVE_UP;
      const d = t === 'o' ? scanDelta(sc) : null;
      if (bit === 1) delta = d;
      else message = d;
    } else if (bit === 4 && t === 's') {
      textAt = sc.i + 1;
      text = sc.string();
      textEnd = sc.i - 1;
    }
    else if (bit === 8 && t === 's') info.finishReason = sc.string();
    else sc.skip();
  } while (sc.next(RBRACE));
  // c.delta ?? c.message: a null or absent delta falls through to message.
  const d = delta ?? message;
  if (d) {
    info.reasoning += d[0];
    info.answer += d[1];
  }
  if (text !== undefined) info.answer += text;
  // Where the answer lies when it is one string (chat: delta.content; completions: text), the other part empty.
  if (d && d[2] >= 0 && !text) [sc.contentAt, sc.contentEnd] = [d[2], d[3]];
  else if (textAt >= 0 && !(d && d[1])) [sc.contentAt, sc.contentEnd] = [textAt, textEnd];
  else sc.contentAt = sc.contentEnd = -1;
}

/**
 * A delta (or message) object: [reasoning_content || reasoning, content, where the content string starts, where
 * it ends] (-1: no content string); non-strings read as ''.
 */
function scanDelta(sc: Scanner): [string, string, number, number] {
  if (sc.open(LBRACE, RBRACE)) return ['', '', -1, -1];
  let rc = '';
  let r = '';
  let content = '';
  let at = -1;
  let end = -1;
  let seen = 0;
  do {
    const k = sc.key(DELTA);
    const bit = k < 0 ? 0 : 1 << k; // content 1, reasoning_content 2, reasoning 4, tool_calls 8
    if (bit & seen || bit === 8) throw GIVE_UP;
    seen |= bit;
    if (bit !== 0 && sc.peek() === 's') {
      const from = sc.i + 1;
      const v = sc.string();
      if (bit === 1) {
        content = v;
        at = from;
        end = sc.i - 1;
      }
      else if (bit === 2) rc = v;
      else r = v;
    } else sc.skip(1);
  } while (sc.next(RBRACE));
  return [rc || r, content, at, end];
}

/**
 * The ChunkInfo classifyData would return for `data`, or null when the full parse must decide. Never null for
 * the plain content, role and finish chunks of OpenAI-compatible servers.
 */
export function scanChunk(data: string, template?: Template): ChunkInfo | null {
  if (data.charCodeAt(0) !== LBRACE || CONTROL.test(data)) return null;
  const info: ChunkInfo = { kind: 'x', reasoning: '', answer: '', usage: null, finishReason: null, error: null };
  const sc = new Scanner(data);
  let choices = 0;
  let seen = 0;
  try {
    if (!sc.open(LBRACE, RBRACE)) {
      do {
        const k = sc.key(TOP);
        const bit = k < 0 ? 0 : 1 << k; // choices 1, error 2, usage 4, object 8
        if (bit & seen) return null;
        seen |= bit;
        const t = sc.peek();
        if (bit === 1) {
          if (t === 'n') sc.skip();
          else if (t !== 'a') return null;
          else if (!sc.open(LBRACKET, RBRACKET)) {
            do {
              choices++;
              scanChoice(sc, info);
            } while (sc.next(RBRACKET));
          }
        } else if (bit === 2 || bit === 4) {
          if (t !== 'n') return null; // an error or a usage object: the full parse reads them
          sc.skip();
        } else if (bit === 8 && t === 's') {
          if (sc.string() === 'error') return null;
        } else sc.skip();
      } while (sc.next(RBRACE));
    }
    sc.ws();
    if (sc.i !== data.length) return null;
  } catch {
    return null; // GIVE_UP, or JSON.parse rejecting an escape: the full parse decides
  }
  if (info.answer) info.kind = 'a';
  else if (info.reasoning) info.kind = 'R';
  else if (choices > 0) info.kind = 'r';
  if (template) {
    // A template only from a chunk whose whole answer is one content string of its one choice, and with no
    // backslash anywhere (every `"` then opens or closes a string, so the text around the content is fixed JSON).
    const ok = choices === 1 && sc.contentAt >= 0 && !info.reasoning && info.finishReason === null && data.indexOf('\\') < 0;
    template.head = ok ? data.slice(0, sc.contentAt) : null;
    template.tail = ok ? data.slice(sc.contentEnd) : '';
  }
  return info;
}

/** The text of a stream's last plain content chunk before and after its content string. */
export interface Template {
  head: string | null;
  tail: string;
}

/** A content string that cannot change how the JSON around it reads: no `"`, `\\` or control character. */
function plain(s: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === QUOTE || c === BACKSLASH) return false;
  }
  return true;
}

/**
 * A classifyData for one stream (a fresh one per response): the template path above, then the scanner, then
 * `full` (the full parse, for what neither reads). Returns exactly what `full` returns for the same payload.
 */
export function templateClassifier(full: (data: string) => ChunkInfo): (data: string) => ChunkInfo {
  const t: Template = { head: null, tail: '' };
  return (data) => {
    const head = t.head;
    if (head !== null) {
      const end = data.length - t.tail.length;
      // slice + === compares with memcmp: measured faster than startsWith/endsWith on ~150-character chunks.
      if (end >= head.length && data.slice(end) === t.tail && data.slice(0, head.length) === head && plain(data, head.length, end)) {
        const answer = data.slice(head.length, end);
        return { kind: answer ? 'a' : 'r', reasoning: '', answer, usage: null, finishReason: null, error: null };
      }
    }
    return (data.charCodeAt(0) === LBRACE && data.charCodeAt(1) !== RBRACE ? scanChunk(data, t) : null) ?? full(data);
  };
}
