// An optional string option that is valid when its own parser accepts it; the parser's message becomes the issue.
import { z } from 'zod';

/**
 * `z.string().min(1).optional()` checked by `parse` (which throws on bad input). `message` trims the parser's text
 * when it already names the flag (the issue is shown after the flag anyway).
 */
export function parsedString(parse: (v: string) => unknown, message: (text: string) => string = (t) => t) {
  return z
    .string()
    .min(1)
    .optional()
    .superRefine((v, ctx) => {
      if (v === undefined) return;
      try {
        parse(v);
      } catch (e) {
        ctx.addIssue({ code: 'custom', message: message((e as Error).message) });
      }
    });
}
