// The console's site list: 50 sites a page (keyset cursors from GET /api/factory/sites), with a search box; each row
// shows the last sync's state as a badge with its result (or a running sync's progress), and the schedule's next sync.
import { $, messageOf } from './page.js';
import { figure } from './sync-progress.js';

/** @typedef {import('../lib/inventory/schemas.js').Site} Site */
/** @typedef {import('../lib/inventory/schemas.js').SiteSummary} SiteSummary */
/** @typedef {import('../lib/inventory/schemas.js').Sync} Sync */
/** @typedef {import('../lib/inventory/site-list.js').SitePage} SitePage */
/** @typedef {(text: string | null | undefined, className?: string) => HTMLTableCellElement} Cell */
/** @typedef {(label: string, onClick: () => void, name?: string) => HTMLButtonElement} Button */
/** @typedef {<T>(path: string) => Promise<T>} Api */

const PAGE_SIZE = 50;
const SEARCH_DELAY_MS = 300;

/**
 * `2026-12-03T10:05:00.000Z` -> `2026-12-03 10:05 UTC`: one time zone for every operator.
 * @param {string} iso
 * @returns {string}
 */
export function shortTime(iso) {
  return `${iso.slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * A site's schedule and its next sync, for the list: `24h, next 2026-12-03 10:05 UTC`, or `off`.
 * @param {Pick<Site, 'schedule' | 'nextSyncAt'>} site
 * @returns {string}
 */
export function scheduleText(site) {
  const schedule = site.schedule ?? 'off';
  return schedule === 'off' || !site.nextSyncAt ? schedule : `${schedule}, next ${shortTime(site.nextSyncAt)}`;
}

/**
 * What the last sync did, beside its badge: a running sync's progress, an ended one's time and changes.
 * @param {Sync} sync
 * @returns {string}
 */
export function lastSyncText(sync) {
  if (sync.state === 'running') {
    const known = sync.sitemapsDone + sync.sitemapsPending;
    return `since ${shortTime(sync.startedAt)} · ${figure(sync.sitemapsDone)} of ${figure(known)} sitemaps · ${figure(sync.urlsFound)} URLs`;
  }
  const ended = shortTime(sync.finishedAt ?? sync.updatedAt);
  const result = `${figure(sync.new)} new, ${figure(sync.changed)} changed, ${figure(sync.removed)} removed`;
  return sync.state === 'done' ? `${ended} · ${result}` : `${ended} · ${sync.message ?? result}`;
}

/**
 * The last sync's cell: a state badge (`running`, `done`, `stopped`, `failed`, or `never`) and what it did.
 * @param {Cell} cell
 * @param {Sync | null} sync
 * @returns {HTMLTableCellElement}
 */
function lastSyncCell(cell, sync) {
  const td = cell('');
  const badge = document.createElement('span');
  const state = sync ? sync.state : 'never';
  badge.className = `badge badge-${state}`;
  badge.textContent = state;
  td.append(badge);
  if (sync) td.append(` ${lastSyncText(sync)}`);
  return td;
}

/**
 * Wires #site-search, #sites-table, #sites-prev, #sites-next and #sites-range. `api` calls the API, `cell` and
 * `button` build the table, `onOpen(siteId)` opens a site, `onError(message)` shows a failure. `reload()` shows the
 * current page again (after a sync or a new site).
 * @param {{ api: Api, cell: Cell, button: Button, onOpen: (siteId: string) => void, onError: (message: string) => void }} options
 * @returns {{ reload: () => Promise<void> }}
 */
export function createSiteList({ api, cell, button, onOpen, onError }) {
  // cursors[i] opens page i (null: the first); the query is the one those cursors belong to.
  /** @type {{ query: string, cursors: Array<string | null>, nextCursor: string | null }} */
  const view = { query: '', cursors: [null], nextCursor: null };

  /** @param {SiteSummary[]} sites */
  function render(sites) {
    $('#sites-table tbody').replaceChildren(
      ...sites.map((site) => {
        const tr = document.createElement('tr');
        tr.append(cell(site.siteId), cell(site.rootUrl, 'url'), cell(String(site.urlCount)), lastSyncCell(cell, site.lastSync));
        tr.append(cell(scheduleText(site)), cell(String(site.failingSitemaps), site.failingSitemaps > 0 ? 'bad' : undefined));
        const td = document.createElement('td');
        td.append(button('Open', () => onOpen(site.siteId), `Open ${site.siteId}`));
        tr.append(td);
        return tr;
      }),
    );
    const index = view.cursors.length - 1;
    const first = index * PAGE_SIZE + 1;
    const matching = view.query ? ` matching “${view.query}”` : '';
    $('#sites-range').textContent = sites.length
      ? `Sites ${first}–${first + sites.length - 1}${matching}`
      : view.query
        ? `No site matches “${view.query}”`
        : 'No site yet';
    $('#sites-prev', 'button').disabled = index === 0;
    $('#sites-next', 'button').disabled = view.nextCursor === null;
  }

  async function load() {
    const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
    if (view.query) params.set('q', view.query);
    if ($('#failing-first', 'input').checked) params.set('sort', 'failing');
    const cursor = view.cursors.at(-1);
    if (cursor) params.set('cursor', cursor);
    /** @type {SitePage} */
    const page = await api(`/api/factory/sites?${params}`);
    view.nextCursor = page.nextCursor ?? null;
    render(page.sites);
  }

  /** @type {(what: string) => (error: unknown) => void} */
  const failed = (what) => (error) => onError(`${what} failed: ${messageOf(error)}`);

  function search() {
    view.query = $('#site-query', 'input').value.trim();
    view.cursors = [null];
    return load();
  }

  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let typing;
  $('#site-search').addEventListener('submit', (event) => {
    event.preventDefault();
    clearTimeout(typing);
    void search().catch(failed('Search'));
  });
  $('#site-query').addEventListener('input', () => {
    clearTimeout(typing);
    typing = setTimeout(() => void search().catch(failed('Search')), SEARCH_DELAY_MS);
  });
  $('#failing-first').addEventListener('change', () => void search().catch(failed('Sorting sites')));
  $('#sites-next').addEventListener('click', () => {
    if (view.nextCursor === null) return;
    view.cursors.push(view.nextCursor);
    void load().catch(failed('Listing sites'));
  });
  $('#sites-prev').addEventListener('click', () => {
    if (view.cursors.length > 1) view.cursors.pop();
    void load().catch(failed('Listing sites'));
  });
  return { reload: load };
}
