// The dashboard's access token: random, and compared in constant time so its value cannot be guessed byte by byte.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 128 random bits, hex (safe in a URL and in an HTML attribute as is). */
export const createToken = (): string => randomBytes(16).toString('hex');

/** Hashing both sides first gives equal lengths, so the comparison takes the same time whatever was given. */
export function tokenMatches(given: string | null | undefined, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const h = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(h(given), h(expected));
}
