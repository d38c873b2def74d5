/**
 * Migration 5: site deletion. A deleted site is marked first (it vanishes from every read and cannot start a sync),
 * then its rows are removed in batches and the site row last; a purge cut short is finished by the next one.
 */
export const sql = `
ALTER TABLE sites ADD COLUMN deleted_at timestamptz;
`;
