// The ops console: plain ES module, no build, no CDN. Talks to /api/factory/* with the bearer token kept in sessionStorage.
import { watchHealth } from './health.js';
import { createSiteList, shortTime } from './site-list.js';
import { groupChoices, scopeWarning } from './scope-choice.js';
import { renderTrend } from './sync-chart.js';
import { renderProgress } from './sync-progress.js';

const $ = (selector) => document.querySelector(selector);
const TOKEN_KEY = 'crawler-factory-token';
const POLL_MS = 1000;
const STEP_BUDGET_MS = 2000;

// `pageCursor` opens the URL page on show (null: the first), `cursor` the next one.
// `starting` is true from a Sync click until its first status: nothing else may render the sync meanwhile.
const state = { siteId: null, sync: null, polling: false, starting: false, cursor: null, pageCursor: null, estimate: null, warnedChoice: null };

function token() {
  return sessionStorage.getItem(TOKEN_KEY) ?? '';
}

// The banner: errors no control caused (loading, paging, filtering, history).
function showError(message) {
  const box = $('#error');
  box.textContent = message ?? '';
  box.hidden = !message;
}

/**
 * An error next to the control that caused it (`#<where>-error`: estimate, add, sync, download), cleared (null) on
 * that control's next success.
 */
function showErrorAt(where, message) {
  const box = $(`#${where}-error`);
  box.textContent = message ?? '';
  box.hidden = !message;
}

/** Calls the API with the token; a JSON error becomes an exception carrying its kind. */
async function api(path, { method = 'GET', body, accept } = {}) {
  const headers = { 'content-type': 'application/json' };
  if (token()) headers.authorization = `Bearer ${token()}`;
  if (accept) headers.accept = accept;
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (accept && response.ok) return response;
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw Object.assign(new Error(data.error?.message ?? `HTTP ${response.status}`), { kind: data.error?.kind, status: response.status });
  return data;
}

function cell(text, className) {
  const td = document.createElement('td');
  td.textContent = text ?? '';
  if (className) td.className = className;
  return td;
}

function button(label, onClick, name) {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = label;
  if (name) b.setAttribute('aria-label', name);
  b.addEventListener('click', onClick);
  return b;
}

function errorsText(errors) {
  const parts = Object.entries(errors ?? {}).map(([kind, n]) => `${kind} ${n}`);
  return parts.length ? parts.join(', ') : 'none';
}

const sitePath = (suffix = '') => `/api/factory/sites/${encodeURIComponent(state.siteId)}${suffix}`;

// The site list pages and searches by itself; everything else only asks it to show its current page again.
const siteList = createSiteList({ api, cell, button, onOpen: (siteId) => openSite(siteId), onError: showError });
const loadSites = () => siteList.reload();

function renderEstimate(estimate) {
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

// A group picked from the estimate's list joins (or leaves) the typed ones.
function togglePathGroup(prefix, on) {
  const typed = $('#path-groups')
    .value.split(',')
    .map((p) => p.trim())
    .filter(Boolean)
    .filter((p) => p !== prefix);
  $('#path-groups').value = (on ? [...typed, prefix] : typed).join(', ');
}

async function onEstimate(event) {
  event.preventDefault();
  try {
    state.estimate = await api('/api/factory/estimate', { method: 'POST', body: { rootUrl: $('#root-url').value.trim() } });
    showErrorAt('estimate', null);
    renderEstimate(state.estimate);
    $('#estimate h3').focus?.();
  } catch (error) {
    showErrorAt('estimate', `Estimate failed: ${error.message}`);
  }
}

function chosenFilter() {
  if (document.querySelector('input[name="scope"]:checked')?.value !== 'subtree') return undefined;
  const pathPrefixes = $('#path-groups')
    .value.split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const locales = [...document.querySelectorAll('#locales input:checked')].map((input) => input.value);
  return { pathPrefixes, locales };
}

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
  const body = { rootUrl: $('#root-url').value.trim(), ...(filter ? { options: { filter } } : {}) };
  if ($('#site-id').value.trim()) body.siteId = $('#site-id').value.trim();
  try {
    const site = await api('/api/factory/sites', { method: 'POST', body });
    showErrorAt('add', null);
    cancelAdd();
    await loadSites();
    await openSite(site.siteId);
  } catch (error) {
    showErrorAt('add', `Adding the site failed: ${error.message}`);
  }
}

function cancelAdd() {
  $('#estimate').hidden = true;
  $('#estimate-form').reset();
  state.estimate = null;
}

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
  $('#stop-button').disabled = !running;
  $('#sync-button').disabled = running;
}

function failureText(failure) {
  const what = `${failure.kind}${failure.status ? ` ${failure.status}` : ''}: ${failure.message}`;
  const fate = failure.fate === 'gone' ? 'gone, its URLs removed' : 'unknown, its URLs kept';
  return `${failure.url ?? '(the whole job)'} — ${what} (${fate})`;
}

function noteList(titleText, items) {
  const title = document.createElement('p');
  title.textContent = titleText;
  const list = document.createElement('ul');
  list.append(...items.map((text) => Object.assign(document.createElement('li'), { textContent: text })));
  return [title, list];
}

// An ended sync's failed sitemaps (the first 1000), from its detail: which one failed, why, and what became of its URLs;
// then the sitemaps read whole with a report (locs dropped by reason, with an example; junk child locs).
async function renderFailures(sync) {
  const box = $('#sync-failures');
  box.replaceChildren();
  box.hidden = true;
  if (!sync || sync.state === 'running') return;
  const { failedSitemaps, reportedSitemaps } = await api(sitePath(`/syncs/${sync.syncId}`));
  if (state.sync?.syncId !== sync.syncId || failedSitemaps.length + reportedSitemaps.length === 0) return;
  const parts = [];
  if (failedSitemaps.length > 0) parts.push(...noteList(`Failed sitemaps (${failedSitemaps.length}):`, failedSitemaps.map(failureText)));
  if (reportedSitemaps.length > 0) {
    const texts = reportedSitemaps.map((note) => `${note.url ?? '(the whole job)'} — ${note.kind}: ${note.message} (read whole)`);
    parts.push(...noteList(`Sitemaps read with reports (${reportedSitemaps.length}):`, texts));
  }
  box.replaceChildren(...parts);
  box.hidden = false;
}

async function loadSyncs() {
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
  return Promise.all([loadSyncs(), loadSites(), loadUrls(state.pageCursor)]).catch((error) => showError(`Refreshing failed: ${error.message}`));
}

// While the page is open and a sync runs, the console advances it (one slice per call), as the orchestrator would,
// and shows what each slice changed; the refreshing stops with the sync.
async function poll() {
  if (state.polling) return;
  state.polling = true;
  try {
    while (state.sync?.state === 'running') {
      const syncId = state.sync.syncId;
      const sync = await api(sitePath(`/syncs/${syncId}`), { method: 'POST', body: { budgetMs: STEP_BUDGET_MS } });
      if (state.sync?.syncId !== syncId) break;
      showErrorAt('sync', null);
      renderSync(sync);
      if (sync.state !== 'running') break;
      await refreshWhileRunning();
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  } catch (error) {
    showErrorAt('sync', `Progress failed: ${error.message}`);
  } finally {
    state.polling = false;
  }
  await refreshAfterSync();
}

// A sync that ended (possibly within its first call) changes the site's count, its syncs and its URLs.
async function refreshAfterSync() {
  if (state.sync?.state === 'running') return;
  await Promise.all([loadSyncs(), loadSites(), loadUrls(null), renderFailures(state.sync)]).catch((error) => showError(error.message));
}

// The button stays disabled from the click until the new sync's first status (no double start); the status says
// `running` at once, and goes back to the last sync's if the start is refused.
async function onSync() {
  const siteId = state.siteId;
  state.starting = true;
  $('#sync-button').disabled = true;
  $('#stop-button').disabled = true;
  $('#sync-failures').hidden = true;
  $('#sync-status').textContent = 'Sync starting: running — waiting for its first status…';
  renderProgress('starting');
  let started;
  try {
    started = await api(sitePath('/sync'), { method: 'POST', body: { budgetMs: STEP_BUDGET_MS } });
  } catch (error) {
    if (state.siteId !== siteId) return;
    renderSync(state.sync);
    showErrorAt('sync', `Sync failed to start: ${error.message}`);
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
  $('#stop-button').disabled = true;
  try {
    renderSync(await api(sitePath('/sync/stop'), { method: 'POST', body: {} }));
    showErrorAt('sync', null);
    await refreshAfterSync();
  } catch (error) {
    renderSync(state.sync);
    showErrorAt('sync', `Stop failed: ${error.message}`);
  }
}

function urlQuery(cursor) {
  const params = new URLSearchParams();
  const prefix = $('#filter-prefix').value.trim();
  const locale = $('#filter-locale').value.trim();
  const changed = $('#filter-changed').value;
  const removed = $('#filter-removed').value;
  if (prefix) params.set('prefix', prefix);
  if (locale) params.set('locale', locale);
  if (changed) params.set('changedSince', changed);
  if (removed) params.set('removed', removed);
  if (cursor) params.set('cursor', cursor);
  return params;
}

async function loadUrls(cursor) {
  const params = urlQuery(cursor);
  params.set('limit', '100');
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
  $('#next-page').disabled = page.nextCursor === null;
}

async function showHistory(url) {
  try {
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
    showError(`History failed: ${error.message}`);
  }
}

// The API streams the export to disk as an attachment: the tab never holds the rows. A plain link cannot send the
// bearer token, so an authenticated POST first mints a short-lived link signed for this site (never the token itself).
async function download(format) {
  try {
    const body = { format, ...Object.fromEntries(urlQuery(null)) };
    const { url } = await api(sitePath('/urls/download'), { method: 'POST', body });
    const link = document.createElement('a');
    link.href = url;
    link.download = `${state.siteId}-urls.${format}`;
    link.click();
    showErrorAt('download', null);
  } catch (error) {
    showErrorAt('download', `Download failed: ${error.message}`);
  }
}

// The select shows the site's schedule; one set elsewhere (the CLI: `90m`) gets an option of its own.
function renderSchedule(site) {
  const select = $('#schedule');
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
    renderSchedule(await api(sitePath(), { method: 'PATCH', body: { schedule: $('#schedule').value } }));
    showError(null);
    await loadSites();
  } catch (error) {
    showError(`Setting the schedule failed: ${error.message}`);
  }
}

async function openSite(siteId) {
  state.siteId = siteId;
  $('#site-title').textContent = `Site ${siteId}`;
  $('#site-panel').hidden = false;
  $('#history').hidden = true;
  // The errors of another site's sync or download are not this site's.
  showErrorAt('sync', null);
  showErrorAt('download', null);
  renderSchedule(await api(sitePath()));
  const syncs = await loadSyncs();
  if (state.siteId !== siteId) return;
  // A Sync clicked while the site was opening renders its own status, failures and progress.
  const starting = state.starting;
  if (!starting) renderSync(syncs[0] ?? null);
  await Promise.all([loadUrls(null), starting ? null : renderFailures(state.sync)]);
  if (!starting && state.sync?.state === 'running') void poll();
  $('#site-title').scrollIntoView?.();
}

function wire() {
  $('#token').value = token();
  const checkHealth = watchHealth(token);
  $('#token-form').addEventListener('submit', (event) => {
    event.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, $('#token').value);
    void checkHealth();
    void loadSites().then(
      () => showError(null),
      (error) => showError(`Loading sites failed: ${error.message}`),
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
      (error) => showError(`Listing failed: ${error.message}`),
    );
  });
  $('#first-page').addEventListener('click', () => void loadUrls(null).catch((error) => showError(error.message)));
  $('#next-page').addEventListener('click', () => void loadUrls(state.cursor).catch((error) => showError(error.message)));
  $('#download-ndjson').addEventListener('click', () => void download('ndjson'));
  $('#download-csv').addEventListener('click', () => void download('csv'));
  void loadSites().catch((error) => showError(error.status === 401 ? 'Enter the API token above.' : `Loading sites failed: ${error.message}`));
}

wire();
