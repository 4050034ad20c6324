// Issue 32's run options (the practice's items): input-length bands, run tags and the short-only baseline (explicit or automatic).
// One schema and flag set, part of RunConfigSchema.
import { z } from 'zod';
import { flagTable } from '../util/flags.js';
import { parseLengthBands, parseTokenCount, DEFAULT_LENGTH_BANDS } from '../metrics/length-bands.js';

/** A tag key: letters, digits and ._- (it becomes a JSON key and a compare row). */
const TAG_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** Keys whose value must never be written (a tag is stored in run.json and summary.json). */
const SECRET_KEY = /(^|[._-])(token|secret|password|passwd|api[._-]?key|key|auth|credential)s?$/i;

/** Why a `--tag` value is refused, or null when it is fine. */
export function tagProblem(t: string): string | null {
  const eq = t.indexOf('=');
  if (eq <= 0) return `"${t}": expected KEY=VALUE, e.g. --tag commit=abc123`;
  const key = t.slice(0, eq);
  if (!TAG_KEY.test(key)) return `"${key}": a tag key is 1-64 letters, digits, dots, dashes or underscores, starting with a letter or digit`;
  if (SECRET_KEY.test(key)) return `"${key}": looks like a secret, and tags are written to run.json and summary.json; leave it out`;
  if (t.length - eq - 1 > 500) return `"${key}": a tag value is at most 500 characters`;
  if (/[\x00-\x1f\x7f]/.test(t)) return `"${key}": a tag value holds no control characters`;
  return null;
}

/** `--tag` values as the run's `tags` object (the last of a repeated key wins), in the order first given. */
export function tagsOf(list: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const t of list) {
    const eq = t.indexOf('=');
    out[t.slice(0, eq)] = t.slice(eq + 1);
  }
  return out;
}

export const PracticeSchema = z.object({
  /** Input-length bands of by_length_band (docs/metrics.md#input-length-bands); undefined = the default bands. */
  lengthBands: z
    .string()
    .superRefine((v, ctx) => {
      try {
        parseLengthBands(v);
      } catch (e) {
        ctx.addIssue({ code: 'custom', message: (e as Error).message });
      }
    })
    .optional(),
  /** Free-form KEY=VALUE labels of the run (run.json and summary.json `tags`; compare shows both sides'). */
  tag: z
    .array(z.string())
    .superRefine((list, ctx) => {
      for (const t of list) {
        const p = tagProblem(t);
        if (p) ctx.addIssue({ code: 'custom', message: p });
      }
    })
    .default([]),
  /** Prompt tokens below which a request is short: run a short-only baseline first and report the slowdown (docs/metrics.md#short-vs-long-baseline). */
  shortBaseline: z
    .string()
    .superRefine((v, ctx) => {
      try {
        if (parseTokenCount(v) < 1) ctx.addIssue({ code: 'custom', message: 'expected a positive number of tokens' });
      } catch (e) {
        ctx.addIssue({ code: 'custom', message: (e as Error).message });
      }
    })
    .optional(),
  /** Measure a short-only baseline first when the workload is mixed-length (off: --no-short-baseline; docs/metrics.md#short-vs-long-baseline). */
  autoShortBaseline: z.boolean().default(true),
});

export const PRACTICE_FLAGS = flagTable(PracticeSchema.shape, {
  lengthBands: {
    arg: 'list',
    help: `break every metric down by input-length band, e.g. 0-4k,4k-16k,16k-32k,32k+ (k = 1024 tokens; LO-HI or LO+, ascending): summary.json by_length_band, the terminal and report.html; none turns it off (docs/metrics.md#input-length-bands)`,
    defaultText: `${DEFAULT_LENGTH_BANDS}, shown when two or more bands have requests`,
  },
  shortBaseline: {
    arg: 'tokens',
    help: 'mixed-length runs: requests with prompts under this many tokens (e.g. 4k) are short; first run a short-only baseline of the mixed run\'s full size at the same load into OUT/short-baseline/, then the mixed run, and report how much the long requests slow the short ones (TTFT/TPOT/E2E ratio and difference with a 95% interval; summary.json short_baseline; needs --out; without it a mixed-length run measures a smaller baseline on its own; docs/metrics.md#short-vs-long-baseline)',
  },
  autoShortBaseline: {
    name: 'short-baseline',
    help: 'no automatic short-only baseline: by default a run whose planned prompts fall on both sides of 4k tokens (each side at least 10% and 5 requests) first measures a short-only baseline of a quarter of its size (20-200 requests, 10-120 s) into OUT/short-baseline/ and reports the slowdown; config key auto-short-baseline: false (docs/metrics.md#short-vs-long-baseline)',
  },
  tag: { arg: 'KEY=VALUE', help: 'label the run, repeatable, e.g. --tag commit=abc123 --tag engine=vllm-0.9: run.json and summary.json tags; compare shows both sides and flags differences (keys that look like secrets are refused)', repeatable: true },
});
