import { z } from 'zod';

/** Why the parser drops a page loc (the keys of the parser's DropCounts), in the order they are shown. */
export const DROP_REASONS = ['relative', 'badScheme', 'malformed', 'tooLong', 'controlCharacters'] as const;
export const DropReasonSchema = z.enum(DROP_REASONS);

/** Locs dropped by reason: how many, and the first one (control characters percent-encoded), when it had text. */
export const LocDropsSchema = z.partialRecord(DropReasonSchema, z.object({ count: z.number().int().positive(), example: z.string().nullable() }));
export type LocDrops = z.infer<typeof LocDropsSchema>;

/** The drops a parse counted, only the reasons that dropped something. */
export function locDropsOf(counts: Readonly<Record<z.infer<typeof DropReasonSchema>, number>>, examples: Partial<Record<string, string>>): LocDrops {
  const drops: LocDrops = {};
  for (const reason of DROP_REASONS) if (counts[reason] > 0) drops[reason] = { count: counts[reason], example: examples[reason] ?? null };
  return drops;
}

/** Adds `more` into `into` (counts summed, the first example kept). */
export function addLocDrops(into: LocDrops, more: LocDrops): void {
  for (const reason of DROP_REASONS) {
    const next = more[reason];
    if (next === undefined) continue;
    const have = into[reason];
    into[reason] = have === undefined ? { ...next } : { count: have.count + next.count, example: have.example ?? next.example };
  }
}

/** `4,741 locs dropped: relative 4,741 (e.g. /about/)`, or null when none were. */
export function locDropsText(drops: LocDrops): string | null {
  const parts = DROP_REASONS.flatMap((reason) => {
    const drop = drops[reason];
    return drop === undefined ? [] : [`${reason} ${drop.count.toLocaleString('en')}${drop.example === null ? '' : ` (e.g. ${drop.example})`}`];
  });
  if (parts.length === 0) return null;
  const total = DROP_REASONS.reduce((sum, reason) => sum + (drops[reason]?.count ?? 0), 0);
  return `${total.toLocaleString('en')} loc${total === 1 ? '' : 's'} dropped: ${parts.join(', ')}`;
}
