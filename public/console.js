// The ops console: plain ES module, no build, no CDN. Talks to /api/factory/* with the bearer token kept in sessionStorage.
import { watchHealth } from './health.js';
import { $, messageOf } from './page.js';
import { createSiteList, shortTime } from './site-list.js';
import { groupChoices, scopeWarning } from './scope-choice.js';
import { createSitemapView } from './sitemap-view.js';
import { renderTrend } from './sync-chart.js';
import { renderProgress } from './sync-progress.js';

// The API's bodies, as the server types them.
/** @typedef {import('../lib/core/errors.js').ErrorKind} ErrorKind */
/** @typedef {import('../lib/core/types.js').ScopeEstimate} ScopeEstimate */
/** @typedef {import('../lib/inventory/schemas.js').FailedSitemap} FailedSitemap */
/** @typedef {import('../lib/inventory/schemas.js').HistoryRow} HistoryRow */
/** @typedef {import('../lib/inventory/schemas.js').Site} Site */
/** @typedef {import('../lib/inventory/schemas.js').SiteFilter} SiteFilter */
/** @typedef {import('../lib/inventory/schemas.js').Sync} Sync */
/** @typedef {import('../lib/inventory/schemas.js').SyncDetail} SyncDetail */
/** @typedef {import('../lib/inventory/url-query.js').UrlPage} UrlPage */
/** @typedef {import('zod').input<typeof import('../lib/service/sites-api.js').NewSiteRequestSchema>} NewSiteRequest */
/** @typedef {import('zod').input<typeof import('../lib/service/sites-api.js').DownloadLinkRequestSchema>} DownloadLinkRequest */
/**
 * `GET .../urls/{url}/history`.
 * @typedef {{ url: string, history: HistoryRow[] }} UrlHistory
 */
/**
 * `POST .../urls/download`: a short-lived link to the export, signed for the site.
 * @typedef {{ url: string, expiresAt: string | null }} DownloadLink
 */
/**
 * An error response's body (`{}` when it is not JSON).
 * @typedef {{ error?: { kind?: ErrorKind, message?: string } }} ErrorBody
 */
/** @typedef {{ method?: string, body?: unknown, accept?: string }} ApiInit */

const TOKEN_KEY = 'crawler-factory-token';
const POLL_MS = 1000;
const STEP_BUDGET_MS = 2000;

// `pageCursor` opens the URL page on show (null: the first), `cursor` the next one.
// `starting` is true from a Sync click until its first status: nothing else may render the sync meanwhile.
/**
 * @type {{
 *   siteId: string | null, sync: Sync | null, polling: boolean, starting: boolean, cursor: string | null, pageCursor: string | null,
 *   estimate: ScopeEstimate | null, warnedChoice: string | null,
 * }}
 */
const state = { siteId: null, sync: null, polling: false, starting: false, cursor: null, pageCursor: null, estimate: null, warnedChoice: null };

function token() {
  return sessionStorage.getItem(TOKEN_KEY) ?? '';
}

/**
 * The banner: errors no control caused (loading, paging, filtering, history).
 * @param {string | null} message
 */
function showError(message) {
  const box = $('#error');
  box.textContent = message ?? '';
  box.hidden = !message;
}

/**
 * An error next to the control that caused it (`#<where>-error`: estimate, add, sync, download), cleared (null) on
 * that control's next success.
 * @param {'estimate' | 'add' | 'sync' | 'download'} where
 * @param {string | null} message
 */
function showErrorAt(where, message) {
  const box = $(`#${where}-error`);
  box.textContent = message ?? '';
  box.hidden = !message;
}

/**
 * Calls the API with the token; a JSON error becomes an exception carrying its kind. The body is the route's `T`
 * (the Response itself with `accept`), as the caller declares it.
 * @template T
 * @param {string} path
 * @param {ApiInit} [init]
 * @returns {Promise<T>}
 */
async function api(path, { method = 'GET', body, accept } = {}) {
  /** @type {Record<string, string>} */
  const headers = { 'content-type': 'application/json' };
  if (token()) headers.authorization = `Bearer ${token()}`;
  if (accept) headers.accept = accept;
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (accept && response.ok) return /** @type {T} */ (response);
  /** @type {unknown} */
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const failure = /** @type {ErrorBody} */ (data);
    throw Object.assign(new Error(failure.error?.message ?? `HTTP ${response.status}`), { kind: failure.error?.kind, status: response.status });
  }
  return /** @type {T} */ (data);
}

/**
 * The HTTP status an API call failed with (undefined for a network failure).
 * @param {unknown} error
 * @returns {number | undefined}
 */
function statusOf(error) {
  return error instanceof Error && 'status' in error && typeof error.status === 'number' ? error.status : undefined;
}

/**
 * @param {string | null | undefined} text
 * @param {string} [className]
 * @returns {HTMLTableCellElement}
 */
function cell(text, className) {
  const td = document.createElement('td');
  td.textContent = text ?? '';
  if (className) td.className = className;
  return td;
}

/**
 * @param {string} label
 * @param {() => void} onClick
 * @param {string} [name] its accessible name, when not the label
 * @returns {HTMLButtonElement}
 */
function button(label, onClick, name) {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = label;
  if (name) b.setAttribute('aria-label', name);
  b.addEventListener('click', onClick);
  return b;
}

/**
 * @param {Sync['errors'] | undefined} errors
 * @returns {string}
 */
function errorsText(errors) {
  const parts = Object.entries(errors ?? {}).map(([kind, n]) => `${kind} ${n}`);
  return parts.length ? parts.join(', ') : 'none';
}

/**
 * The open site's API path (every caller runs with a site open: its panel's controls, its sync's refreshes).
 * @param {string} [suffix]
 * @returns {string}
 */
function sitePath(suffix = '') {
  if (state.siteId === null) throw new Error('console: no site is open');
  return `/api/factory/sites/${encodeURIComponent(state.siteId)}${suffix}`;
}

// The site list pages and searches by itself; everything else only asks it to show its current page again.
// A site that fails to open says why in the banner (its panel keeps what it showed).
const openOrSay = (/** @type {string} */ siteId) => openSite(siteId).catch((error) => showError(`Opening ${siteId} failed: ${messageOf(error)}`));
const siteList = createSiteList({ api, cell, button, onOpen: openOrSay, onError: showError });
const sitemapView = createSitemapView({ api, cell, button, onError: showError });
const loadSites = () => siteList.reload();

/** @param {ScopeEstimate} estimate */
function renderEstimate(estimate) {
  /** @type {Array<[string, string]>} */
  const figures = [
    ['Sub-sitemaps', String(estimate.subSitemapCount)],
    ['URL range', `${estimate.urlEstimateRange[0]} – ${estimate.urlEstimateRange[1]}`],
    ['Point estimate', estimate.urlEstimate === null ? 'unknown' : String(estimate.urlEstimate)],
    ['Languages', estimate.languagesDetected.join(', ') || 'none detected'],
    ['Transport', estimate.transport],
    ['Warnings', estimate.warnings.join('; ') || 'none'],
  ];
  $('#estimate-figures').replaceChildren(
    ...figures.flatMap(([term, value]) => {
      const dt = document.createElement('dt');
      dt.textContent = term;
      const dd = document.createElement('dd');
      dd.textContent = value;
      return [dt, dd];
    }),
  );
  $('#locales').replaceChildren(
    ...estimate.languagesDetected.map((locale) => {
      const label = document.createElement('label');
      const input = document.createElement('input');
      input.type = 'checkbox';
      input.value = locale;
      label.append(input, ` ${locale} `);
      return label;
    }),
  );
  $('#path-group-choices').replaceChildren(
    ...groupChoices(estimate).map((group) => {
      const label = document.createElement('label');
      const input = document.createElement('input');
      input.type = 'checkbox';
      input.value = group.prefix;
      input.addEventListener('change', () => togglePathGroup(group.prefix, input.checked));
      label.append(input, ` ${group.prefix} (${group.count}) `);
      return label;
    }),
  );
  $('#estimate').hidden = false;
}

/**
 * A group picked from the estimate's list joins (or leaves) the typed ones.
 * @param {string} prefix
 * @param {boolean} on
 */
function togglePathGroup(prefix, on) {
  const typed = $('#path-groups', 'input')
    .value.split(',')
    .map((p) => p.trim())
    .filter(Boolean)
    .filter((p) => p !== prefix);
  $('#path-groups', 'input').value = (on ? [...typed, prefix] : typed).join(', ');
}

/** @param {Event} event */
async function onEstimate(event) {
  event.preventDefault();
  try {
    /** @type {ScopeEstimate} */
    const estimate = await api('/api/factory/estimate', { method: 'POST', body: { rootUrl: $('#root-url', 'input').value.trim() } });
    state.estimate = estimate;
    showErrorAt('estimate', null);
    renderEstimate(estimate);
    $('#estimate h3').focus?.();
  } catch (error) {
    showErrorAt('estimate', `Estimate failed: ${messageOf(error)}`);
  }
}

/**
 * The sub-tree chosen in the wizard, or undefined for the whole site.
 * @returns {SiteFilter | undefined}
 */
function chosenFilter() {
  const scope = /** @type {HTMLInputElement | null} */ (document.querySelector('input[name="scope"]:checked'));
  if (scope?.value !== 'subtree') return undefined;
  const pathPrefixes = $('#path-groups', 'input')
    .value.split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const checked = /** @type {NodeListOf<HTMLInputElement>} */ (document.querySelectorAll('#locales input:checked'));
  const locales = [...checked].map((input) => input.value);
  return { pathPrefixes, locales };
}

/** @param {Event} event */
async function onAddSite(event) {
  event.preventDefault();
  const filter = chosenFilter();
  // A sub-tree that keeps nothing of what the estimate read is said first; the same choice again is saved.
  const warning = scopeWarning(filter, state.estimate);
  const choice = JSON.stringify(filter ?? null);
  if (warning !== null && state.warnedChoice !== choice) {
    state.warnedChoice = choice;
    showErrorAt('add', warning);
    return;
  }
  state.warnedChoice = null;
  /** @type {NewSiteRequest} */
  const body = { rootUrl: $('#root-url', 'input').value.trim(), ...(filter ? { options: { filter } } : {}) };
  if ($('#site-id', 'input').value.trim()) body.siteId = $('#site-id', 'input').value.trim();
  try {
    /** @type {Site} */
    const site = await api('/api/factory/sites', { method: 'POST', body });
    showErrorAt('add', null);
    cancelAdd();
    await loadSites();
    await openSite(site.siteId);
  } catch (error) {
    showErrorAt('add', `Adding the site failed: ${messageOf(error)}`);
  }
}

function cancelAdd() {
  $('#estimate').hidden = true;
  $('#estimate-form', 'form').reset();
  state.estimate = null;
}

/** @param {Sync | null} sync */
function renderSync(sync) {
  state.sync = sync;
  const status = $('#sync-status');
  if (!sync) {
    status.textContent = 'No sync yet.';
  } else {
    status.textContent =
      `Sync ${sync.syncId}: ${sync.state} — ${sync.seen} URLs in the inventory from ${sync.urlsFound} found; ` +
      `shards ${sync.shardsApplied}/${sync.shardsWritten}; sitemaps ${sync.sitemapsDone} done, ${sync.sitemapsPending} pending; ` +
      `${sync.new} new, ${sync.changed} changed, ${sync.returned} returned, ${sync.removed} removed, ` +
      `${sync.kept} kept unchanged, ${sync.keptUnread} kept because their sitemap failed; ` +
      (sync.filtered + sync.leftScope + sync.enteredScope > 0
        ? `scope: ${sync.filtered} outside it, ${sync.leftScope} left it, ${sync.enteredScope} came into it; `
        : '') +
      `errors: ${errorsText(sync.errors)}` +
      (sync.message ? `; ${sync.message}` : '');
  }
  renderProgress(sync);
  const running = sync?.state === 'running';
  if (running) $('#sync-failures').hidden = true;
  $('#stop-button', 'button').disabled = !running;
  $('#sync-button', 'button').disabled = running;
}

/**
 * @param {FailedSitemap} failure
 * @returns {string}
 */
function failureText(failure) {
  const what = `${failure.kind}${failure.status ? ` ${failure.status}` : ''}: ${failure.message}`;
  const fate = failure.fate === 'gone' ? 'gone, its URLs removed' : 'unknown, its URLs kept';
  return `${failure.url ?? '(the whole job)'} — ${what} (${fate})`;
}

/**
 * @param {string} titleText
 * @param {string[]} items
 * @returns {[HTMLParagraphElement, HTMLUListElement]}
 */
function noteList(titleText, items) {
  const title = document.createElement('p');
  title.textContent = titleText;
  const list = document.createElement('ul');
  list.append(...items.map((text) => Object.assign(document.createElement('li'), { textContent: text })));
  return [title, list];
}

// An ended sync's failed sitemaps (the first 1000), from its detail: which one failed, why, and what became of its URLs;
// then the sitemaps read whole with a report (locs dropped by reason, with an example; junk child locs).
/** @param {Sync | null} sync */
async function renderFailures(sync) {
  const box = $('#sync-failures');
  box.replaceChildren();
  box.hidden = true;
  if (!sync || sync.state === 'running') return;
  /** @type {SyncDetail} */
  const { failedSitemaps, reportedSitemaps } = await api(sitePath(`/syncs/${sync.syncId}`));
  if (state.sync?.syncId !== sync.syncId || failedSitemaps.length + reportedSitemaps.length === 0) return;
  /** @type {HTMLElement[]} */
  const parts = [];
  if (failedSitemaps.length > 0) parts.push(...noteList(`Failed sitemaps (${failedSitemaps.length}):`, failedSitemaps.map(failureText)));
  if (reportedSitemaps.length > 0) {
    const texts = reportedSitemaps.map((note) => `${note.url ?? '(the whole job)'} — ${note.kind}: ${note.message} (read whole)`);
    parts.push(...noteList(`Sitemaps read with reports (${reportedSitemaps.length}):`, texts));
  }
  box.replaceChildren(...parts);
  box.hidden = false;
}

/** @returns {Promise<Sync[]>} */
async function loadSyncs() {
  /** @type {{ syncs: Sync[] }} */
  const { syncs } = await api(sitePath('/syncs'));
  $('#syncs-table tbody').replaceChildren(
    ...syncs.map((sync) => {
      const tr = document.createElement('tr');
      tr.append(
        cell(sync.syncId),
        cell(sync.state),
        cell(sync.startedAt),
        cell(String(sync.seen)),
        cell(String(sync.new)),
        cell(String(sync.changed)),
        cell(String(sync.removed)),
        cell(errorsText(sync.errors)),
      );
      return tr;
    }),
  );
  renderTrend(syncs);
  return syncs;
}

// What a running sync moves: its row in the last syncs, the site's count in the site list, the URL page on show.
function refreshWhileRunning() {
  return Promise.all([loadSyncs(), loadSites(), loadUrls(state.pageCursor)]).catch((error) => showError(`Refreshing failed: ${messageOf(error)}`));
}

// While the page is open and a sync runs, the console advances it (one slice per call), as the orchestrator would,
// and shows what each slice changed; the refreshing stops with the sync.
async function poll() {
  if (state.polling) return;
  state.polling = true;
  try {
    while (state.sync?.state === 'running') {
      const syncId = state.sync.syncId;
      /** @type {Sync} */
      const sync = await api(sitePath(`/syncs/${syncId}`), { method: 'POST', body: { budgetMs: STEP_BUDGET_MS } });
      if (state.sync?.syncId !== syncId) break;
      showErrorAt('sync', null);
      renderSync(sync);
      if (sync.state !== 'running') break;
      await refreshWhileRunning();
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  } catch (error) {
    showErrorAt('sync', `Progress failed: ${messageOf(error)}`);
  } finally {
    state.polling = false;
  }
  await refreshAfterSync();
}

// A sync that ended (possibly within its first call) changes the site's count, its syncs and its URLs.
async function refreshAfterSync() {
  if (state.sync?.state === 'running') return;
  await Promise.all([loadSyncs(), loadSites(), loadUrls(null), renderFailures(state.sync), sitemapView.reload()]).catch((error) => showError(messageOf(error)));
}

// The button stays disabled from the click until the new sync's first status (no double start); the status says
// `running` at once, and goes back to the last sync's if the start is refused.
async function onSync() {
  const siteId = state.siteId;
  state.starting = true;
  $('#sync-button', 'button').disabled = true;
  $('#stop-button', 'button').disabled = true;
  $('#sync-failures').hidden = true;
  $('#sync-status').textContent = 'Sync starting: running — waiting for its first status…';
  renderProgress('starting');
  /** @type {Sync} */
  let started;
  try {
    started = await api(sitePath('/sync'), { method: 'POST', body: { budgetMs: STEP_BUDGET_MS } });
  } catch (error) {
    if (state.siteId !== siteId) return;
    renderSync(state.sync);
    showErrorAt('sync', `Sync failed to start: ${messageOf(error)}`);
    return;
  } finally {
    state.starting = false;
  }
  // Another site opened meanwhile: its panel is not this sync's.
  if (state.siteId !== siteId) return;
  showErrorAt('sync', null);
  renderSync(started);
  if (started.state === 'running') await refreshWhileRunning();
  await poll();
}

async function onStop() {
  $('#stop-button', 'button').disabled = true;
  try {
    /** @type {Sync} */
    const stopped = await api(sitePath('/sync/stop'), { method: 'POST', body: {} });
    renderSync(stopped);
    showErrorAt('sync', null);
    await refreshAfterSync();
  } catch (error) {
    renderSync(state.sync);
    showErrorAt('sync', `Stop failed: ${messageOf(error)}`);
  }
}

/**
 * The URL filters' query (the listing's, the download's), continuing after `cursor`.
 * @param {string | null} cursor
 * @returns {URLSearchParams}
 */
function urlQuery(cursor) {
  const params = new URLSearchParams();
  const prefix = $('#filter-prefix', 'input').value.trim();
  const locale = $('#filter-locale', 'input').value.trim();
  const changed = $('#filter-changed', 'input').value;
  const removed = $('#filter-removed', 'select').value;
  if (prefix) params.set('prefix', prefix);
  if (locale) params.set('locale', locale);
  if (changed) params.set('changedSince', changed);
  if (removed) params.set('removed', removed);
  if (cursor) params.set('cursor', cursor);
  return params;
}

/** @param {string | null} cursor */
async function loadUrls(cursor) {
  const params = urlQuery(cursor);
  params.set('limit', '100');
  /** @type {UrlPage} */
  const page = await api(sitePath(`/urls?${params}`));
  state.pageCursor = cursor;
  $('#urls-table tbody').replaceChildren(
    ...page.urls.map((row) => {
      const tr = document.createElement('tr');
      tr.append(
        cell(row.url, 'url'),
        cell(row.sitemapLastmod),
        cell(row.changefreq),
        cell(row.priority === null ? '' : String(row.priority)),
        cell(row.locale),
        cell(row.changedAt),
        cell(row.removedAt ?? ''),
      );
      const td = document.createElement('td');
      td.append(button('History', () => showHistory(row.url), `History of ${row.url}`));
      tr.append(td);
      return tr;
    }),
  );
  state.cursor = page.nextCursor;
  $('#next-page', 'button').disabled = page.nextCursor === null;
}

/** @param {string} url */
async function showHistory(url) {
  try {
    /** @type {UrlHistory} */
    const { history } = await api(sitePath(`/urls/${encodeURIComponent(url)}/history`));
    $('#history-title').textContent = `History of ${url}`;
    $('#history-table tbody').replaceChildren(
      ...(history.length
        ? history.map((row) => {
            const tr = document.createElement('tr');
            tr.append(cell(row.recordedAt), cell(row.syncId), cell(row.event), cell(row.oldValue), cell(row.newValue));
            return tr;
          })
        : [Object.assign(document.createElement('tr'), { innerHTML: '<td colspan="5">No change recorded.</td>' })]),
    );
    $('#history').hidden = false;
  } catch (error) {
    showError(`History failed: ${messageOf(error)}`);
  }
}

// The API streams the export to disk as an attachment: the tab never holds the rows. A plain link cannot send the
// bearer token, so an authenticated POST first mints a short-lived link signed for this site (never the token itself).
/** @param {DownloadLinkRequest['format']} format */
async function download(format) {
  try {
    /** @type {DownloadLinkRequest} */
    const body = { format, ...Object.fromEntries(urlQuery(null)) };
    /** @type {DownloadLink} */
    const { url } = await api(sitePath('/urls/download'), { method: 'POST', body });
    const link = document.createElement('a');
    link.href = url;
    link.download = `${state.siteId}-urls.${format}`;
    link.click();
    showErrorAt('download', null);
  } catch (error) {
    showErrorAt('download', `Download failed: ${messageOf(error)}`);
  }
}

/**
 * The select shows the site's schedule; one set elsewhere (the CLI: `90m`) gets an option of its own.
 * @param {Site} site
 */
function renderSchedule(site) {
  const select = $('#schedule', 'select');
  if (![...select.options].some((option) => option.value === site.schedule)) {
    const option = document.createElement('option');
    option.value = site.schedule;
    option.textContent = `every ${site.schedule}`;
    select.append(option);
  }
  select.value = site.schedule;
  $('#next-sync').textContent = site.nextSyncAt ? `Next sync ${shortTime(site.nextSyncAt)}` : 'No scheduled sync';
}

async function onScheduleChange() {
  try {
    /** @type {Site} */
    const site = await api(sitePath(), { method: 'PATCH', body: { schedule: $('#schedule', 'select').value } });
    renderSchedule(site);
    showError(null);
    await loadSites();
  } catch (error) {
    showError(`Setting the schedule failed: ${messageOf(error)}`);
  }
}

/** @param {string} siteId */
async function openSite(siteId) {
  state.siteId = siteId;
  $('#site-title').textContent = `Site ${siteId}`;
  $('#site-panel').hidden = false;
  $('#history').hidden = true;
  // The errors of another site's sync or download are not this site's.
  showErrorAt('sync', null);
  showErrorAt('download', null);
  /** @type {Site} */
  const site = await api(sitePath());
  renderSchedule(site);
  const syncs = await loadSyncs();
  if (state.siteId !== siteId) return;
  // A Sync clicked while the site was opening renders its own status, failures and progress.
  const starting = state.starting;
  if (!starting) renderSync(syncs[0] ?? null);
  await Promise.all([loadUrls(null), starting ? null : renderFailures(state.sync), sitemapView.show(siteId)]);
  if (!starting && state.sync?.state === 'running') void poll();
  $('#site-title').scrollIntoView?.();
}

function wire() {
  $('#token', 'input').value = token();
  const checkHealth = watchHealth(token);
  $('#token-form').addEventListener('submit', (event) => {
    event.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, $('#token', 'input').value);
    void checkHealth();
    void loadSites().then(
      () => showError(null),
      (error) => showError(`Loading sites failed: ${messageOf(error)}`),
    );
  });
  $('#estimate-form').addEventListener('submit', onEstimate);
  $('#scope-form').addEventListener('submit', onAddSite);
  $('#cancel-add').addEventListener('click', cancelAdd);
  document
    .querySelectorAll('input[name="scope"]')
    .forEach((radio) => radio.addEventListener('change', () => ($('#subtree').hidden = chosenFilter() === undefined)));
  $('#sync-button').addEventListener('click', onSync);
  $('#stop-button').addEventListener('click', onStop);
  $('#schedule').addEventListener('change', () => void onScheduleChange());
  $('#schedule-form').addEventListener('submit', (event) => event.preventDefault());
  $('#url-filters').addEventListener('submit', (event) => {
    event.preventDefault();
    void loadUrls(null).then(
      () => showError(null),
      (error) => showError(`Listing failed: ${messageOf(error)}`),
    );
  });
  $('#first-page').addEventListener('click', () => void loadUrls(null).catch((error) => showError(messageOf(error))));
  $('#next-page').addEventListener('click', () => void loadUrls(state.cursor).catch((error) => showError(messageOf(error))));
  $('#download-ndjson').addEventListener('click', () => void download('ndjson'));
  $('#download-csv').addEventListener('click', () => void download('csv'));
  void loadSites().catch((error) => showError(statusOf(error) === 401 ? 'Enter the API token above.' : `Loading sites failed: ${messageOf(error)}`));
}

wire();
