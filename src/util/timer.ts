// The longest delay a Node.js timer can hold, and the message used wherever a duration flag is checked against it.

/** setTimeout/setInterval fire after 1 ms for any delay above 2^31 − 1 ms (about 24.8 days). */
export const MAX_TIMER_MS = 2 ** 31 - 1;
export const MAX_TIMER_S = MAX_TIMER_MS / 1000;
export const MAX_TIMER_MESSAGE = 'must be at most 24.8 days (2147483647 ms, the longest delay a Node.js timer supports)';
