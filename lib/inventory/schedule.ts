import { z } from 'zod';
import { siteHasRunningSync } from './running-sync.js';

/** The shortest schedule: more often than every 15 minutes would re-read sitemaps that publishers rarely change faster. */
export const MIN_SCHEDULE_MS = 15 * 60_000;

/** The longest schedule (a year): bounds the arithmetic, and a site synced less often than that is better off `off`. */
export const MAX_SCHEDULE_MS = 365 * 86_400_000;

/**
 * Share of the interval added at random to each next sync time: thousands of sites given `24h` at once would otherwise
 * all fall due in the same tick, every day.
 */
export const SCHEDULE_JITTER = 0.1;

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** A schedule as written (`30m`, `6h`, `24h`, `7d` or `off`), parsed to its interval in milliseconds (`off`: null). */
export const ScheduleSchema = z
  .string()
  .trim()
  .regex(/^(off|\d{1,6}[mhd])$/, 'schedule is an interval such as 30m, 6h, 24h, 7d, or off')
  .transform((text) => (text === 'off' ? null : Number(text.slice(0, -1)) * UNIT_MS[text.slice(-1) as keyof typeof UNIT_MS]))
  .refine((ms) => ms === null || ms >= MIN_SCHEDULE_MS, 'schedule must be at least 15m')
  .refine((ms) => ms === null || ms <= MAX_SCHEDULE_MS, 'schedule must be at most 365d');

/** A schedule as written, checked as ScheduleSchema checks it but kept as text (request bodies: the message names the field). */
export const ScheduleTextSchema = z
  .string()
  .max(20)
  .superRefine((text, context) => {
    const parsed = ScheduleSchema.safeParse(text);
    if (!parsed.success) context.addIssue({ code: 'custom', message: parsed.error.issues[0]?.message ?? 'invalid schedule' });
  });

/**
 * A stored interval as the API shows it, null -> `off`: days from 3 days up when whole (`7d`), else hours when whole
 * (`24h`, `48h`: the way people write daily schedules), else minutes (`90m`).
 */
export function formatSchedule(ms: number | null): string {
  if (ms === null) return 'off';
  if (ms > 2 * UNIT_MS.d && ms % UNIT_MS.d === 0) return `${ms / UNIT_MS.d}d`;
  if (ms % UNIT_MS.h === 0) return `${ms / UNIT_MS.h}h`;
  return `${Math.round(ms / UNIT_MS.m)}m`;
}

/**
 * SQL for a site's next sync time: now plus its interval (`schedule_ms`, or the parameter given) plus up to
 * SCHEDULE_JITTER of it at random. One expression, shared by every statement that moves `next_sync_at`.
 */
export function nextSyncSql(intervalMs: string): string {
  return `now() + (${intervalMs})::double precision * (1 + random() * ${SCHEDULE_JITTER}) * interval '1 millisecond'`;
}

/**
 * SQL condition on a `sites` row aliased `s`: its next sync is due (scheduled, not deleted, due, and no sync of it
 * running). One predicate for the tick's claim, the tick's count of what it left, and health's count of due syncs.
 */
export const DUE_SITE_SQL = `s.next_sync_at <= now() AND s.schedule_ms IS NOT NULL AND s.deleted_at IS NULL
  AND NOT ${siteHasRunningSync('s.site_id')}`;
