// A running sync's progress bar on the site page: sitemaps done of those known, URLs found, and the rate since start.
import { $ } from './page.js';

/** @typedef {import('../lib/inventory/schemas.js').Sync} Sync */

/**
 * `1234567` -> `1,234,567`: counts read at a glance.
 * @param {number} n
 * @returns {string}
 */
export function figure(n) {
  return n.toLocaleString('en-US');
}

/**
 * URLs a second since the sync started (server times, both), or null before a second has passed.
 * @param {Pick<Sync, 'startedAt' | 'updatedAt' | 'urlsFound'>} sync
 * @returns {number | null}
 */
export function urlRate(sync) {
  const seconds = (Date.parse(sync.updatedAt) - Date.parse(sync.startedAt)) / 1000;
  return seconds >= 1 ? Math.round(sync.urlsFound / seconds) : null;
}

/**
 * What the bar says of a running sync: `3 of 30 sitemaps · 1,200 URLs · 400 URLs/s`.
 * @param {Pick<Sync, 'startedAt' | 'updatedAt' | 'urlsFound' | 'sitemapsDone' | 'sitemapsPending'>} sync
 * @returns {string}
 */
export function progressText(sync) {
  const known = sync.sitemapsDone + sync.sitemapsPending;
  const rate = urlRate(sync);
  const sitemaps = known === 0 ? 'finding sitemaps' : `${figure(sync.sitemapsDone)} of ${figure(known)} sitemaps`;
  return [sitemaps, `${figure(sync.urlsFound)} URLs`, rate === null ? null : `${figure(rate)} URLs/s`].filter(Boolean).join(' · ');
}

/**
 * Shows #sync-progress for `sync` while it runs; `'starting'` shows it at once from a Sync click, before the sync's
 * first status (indeterminate: no sitemap is known yet); anything else hides it.
 * @param {Sync | 'starting' | null} sync
 */
export function renderProgress(sync) {
  const box = $('#sync-progress-box');
  const bar = $('#sync-progress', 'progress');
  const text = $('#sync-progress-text');
  const running = sync === 'starting' || sync?.state === 'running';
  box.hidden = !running;
  if (sync === null || !running) return;
  const known = sync === 'starting' ? 0 : sync.sitemapsDone + sync.sitemapsPending;
  if (sync === 'starting' || known === 0) {
    bar.removeAttribute('value');
  } else {
    bar.max = known;
    bar.value = sync.sitemapsDone;
  }
  const words = sync === 'starting' ? 'starting' : progressText(sync);
  text.textContent = words;
  bar.setAttribute('aria-valuetext', words);
}
