/** Statuses whose Retry-After is honoured by waiting and asking again. */
export const RETRY_AFTER_STATUSES = new Set([
  429, // Too Many Requests
  503, // Service Unavailable
]);

/** How long a Retry-After header asks to wait (delta-seconds or an HTTP date), or null when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
