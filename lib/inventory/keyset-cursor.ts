import type { z } from 'zod';
import { RequestError } from '../core/errors.js';

/**
 * A list's keyset cursor: the sort key of a page's last row as base64url JSON, read back only when it is exactly what
 * this codec writes for a key the schema accepts (a forged or edited cursor is a 400 that says what to pass instead).
 */
export function keysetCursor<Key extends readonly unknown[]>(schema: z.ZodType<Key>) {
  const encode = (key: Key): string => Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
  const decode = (cursor: string): Key => {
    try {
      const parsed = schema.safeParse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
      if (parsed.success && encode(parsed.data) === cursor) return parsed.data;
    } catch {
      // not JSON: refused below
    }
    throw new RequestError('bad_request', 'invalid cursor: pass the nextCursor of the page before');
  };
  return { encode, decode };
}
