/**
 * The encoded changefreq and priority fields of a row, by pair: a sitemap's changefreqs (seven words) and priorities
 * (a handful of values) make few pairs, so each pair is encoded once by the format's own `encode` (bounded: cleared
 * when full).
 */
export function frequencyPriorityCache(encode: (changefreq: string | null, priority: number | null) => string) {
  const frequencies = new Map<string | null, Map<number | null, Uint8Array>>();
  return (changefreq: string | null, priority: number | null): Uint8Array => {
    let priorities = frequencies.get(changefreq);
    if (priorities === undefined) {
      if (frequencies.size >= 16) frequencies.clear();
      priorities = new Map();
      frequencies.set(changefreq, priorities);
    }
    let bytes = priorities.get(priority);
    if (bytes === undefined) {
      if (priorities.size >= 256) priorities.clear();
      bytes = Buffer.from(encode(changefreq, priority), 'utf8');
      priorities.set(priority, bytes);
    }
    return bytes;
  };
}
