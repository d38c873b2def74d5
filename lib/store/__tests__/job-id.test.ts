import { describe, expect, it } from 'vitest';
import { isJobId, newJobId } from '../job-id.js';

describe('job ids', () => {
  it('are 22 URL-safe characters and never start with "-" (which a CLI would read as a flag)', () => {
    // About 1 in 64 random base64url ids starts with "-": 20,000 draws would show hundreds.
    const ids = Array.from({ length: 20_000 }, newJobId);
    expect(ids.filter((id) => id.startsWith('-'))).toEqual([]);
    expect(ids.every((id) => /^[A-Za-z0-9_-]{22}$/.test(id) && isJobId(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
