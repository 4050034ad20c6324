// One --help layout for every command: terms in a narrow column, descriptions wrapped to the terminal, defaults as "(default X)".
import { Option, type Command, type Help } from 'commander';

/** Widest option term kept beside its description; a longer term gets a line of its own, its description below it. */
export const TERM_COLUMN = 26;
/** Width when stdout is not a terminal (pipes, files, tests), and the narrowest layout used on a terminal. */
export const DEFAULT_HELP_WIDTH = 80;
const MIN_HELP_WIDTH = 40;

/** An option's help text with its default in the one form every command uses (also used for docs/commands/*.md). */
export function optionHelp(o: Option): string {
  const d = o.description;
  const v = o.defaultValue as unknown;
  const hidden = v === undefined || o.negate || typeof v === 'boolean' || (Array.isArray(v) && v.length === 0);
  const shown = o.defaultValueDescription ?? (hidden ? undefined : Array.isArray(v) ? v.join(',') : String(v));
  return shown === undefined || d.includes('(default ') ? d : `${d} (default ${shown})`;
}

/** An option without a value default whose help still says what happens without it: "(default <shown>)" or "(required)". */
export function described(flags: string, description: string, shown: string | 'required'): Option {
  return shown === 'required' ? new Option(flags, `${description} (required)`) : new Option(flags, description).default(undefined, shown);
}

/** Break one word longer than `width` after its last `/`, `,`, `|`, `=` or `;` that fits, else at `width`. */
function breakWord(word: string, width: number): string[] {
  const out: string[] = [];
  let rest = word;
  while (rest.length > width) {
    const head = rest.slice(0, width);
    const at = Math.max(...['/', ',', '|', '=', ';', '&', '}'].map((c) => head.lastIndexOf(c)));
    const cut = at >= width / 3 ? at + 1 : width;
    out.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  return rest ? [...out, rest] : out;
}

/** Greedy word wrap to `width` columns; existing line breaks are kept and no line is ever longer than `width`. */
export function wrapText(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const para of text.split(/\r?\n/)) {
    let line = '';
    for (const w of para.split(/\s+/).filter(Boolean).flatMap((w) => breakWord(w, width))) {
      if (!line) line = w;
      else if (line.length + 1 + w.length <= width) line += ` ${w}`;
      else {
        lines.push(line);
        line = w;
      }
    }
    lines.push(line);
  }
  return lines;
}

/** The help width: the terminal's columns when stdout is one, else 80 (commander passes undefined then). */
export function helpWidthOf(h: Help): number {
  return Math.max(MIN_HELP_WIDTH, h.helpWidth ?? DEFAULT_HELP_WIDTH);
}

/** Apply the layout to `cmd` and every command under it. */
export function applyHelpFormat(cmd: Command): void {
  cmd.configureHelp({
    optionDescription: optionHelp,
    padWidth: (c: Command, h: Help) => Math.min(TERM_COLUMN, Math.max(h.longestOptionTermLength(c, h), h.longestSubcommandTermLength(c, h), h.longestArgumentTermLength(c, h))),
    boxWrap: (s: string, width: number) => wrapText(s, width).join('\n'),
    formatItem: (term: string, termWidth: number, description: string, h: Help) => {
      const width = helpWidthOf(h);
      const indent = 2 + termWidth + 2;
      if (!description) return `  ${term}`;
      const body = wrapText(description, Math.max(20, width - indent)).map((l) => ' '.repeat(indent) + l);
      // A term wider than the column (or than the line) stands alone; the description starts on the next line.
      if (term.length > termWidth) return [`  ${term}`, ...body].join('\n');
      body[0] = `  ${term.padEnd(termWidth)}  ${body[0].trimStart()}`;
      return body.join('\n');
    },
  });
  for (const c of cmd.commands) applyHelpFormat(c);
}
