import { z } from 'zod';

/** A list route's `limit` query parameter: a whole number from 1 to `max`, as text (as a query string carries it). */
export function pageLimitSchema(max: number) {
  return z
    .string()
    .regex(/^\d{1,4}$/, 'limit is a whole number')
    .transform(Number)
    .pipe(z.number().int().min(1).max(max));
}
