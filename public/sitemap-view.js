// The site's Sitemaps view: each sitemap's record failing first (a status badge, where it was found, its figures and
// failed-sync streak), the tree of indexes and their children, and one sitemap's findings and URL count over its reads.
import { $ } from './page.js';
import { shortTime } from './site-list.js';
import { figure } from './sync-progress.js';

/** @typedef {import('../lib/inventory/sitemap-records.js').SitemapRecord} SitemapRecord */
/** @typedef {import('../lib/inventory/sitemap-list.js').SitemapPage} SitemapPage */
/** @typedef {import('../lib/inventory/sitemap-list.js').SitemapRead} SitemapRead */
/** @typedef {SitemapRecord & { reads: SitemapRead[] }} SitemapDetail */
/** @typedef {{ record: SitemapRecord, children: TreeNode[] }} TreeNode */
/** @typedef {(text: string | null | undefined, className?: string) => HTMLTableCellElement} Cell */
/** @typedef {(label: string, onClick: () => void, name?: string) => HTMLButtonElement} Button */
/** @typedef {<T>(path: string) => Promise<T>} Api */

const SVG = 'http://www.w3.org/2000/svg';
const CHART_WIDTH = 320;
const CHART_HEIGHT = 60;
const FOUND_VIA = { robots: 'robots.txt', 'home-page': 'the home page', 'well-known': 'a well-known path', index: 'an index', given: 'given' };

/**
 * A record's badge word: `vanished` once no index lists it, else its status, or `unread` before any sync recorded it.
 * @param {Pick<SitemapRecord, 'status'> & Partial<Pick<SitemapRecord, 'vanishedAt'>>} record
 * @returns {string}
 */
export function statusWord(record) {
  if (record.vanishedAt) return 'vanished';
  return record.status ?? 'unread';
}

/**
 * Where a sitemap was found, in words.
 * @param {Pick<SitemapRecord, 'foundVia' | 'parent'>} record
 * @returns {string}
 */
export function foundViaText(record) {
  if (record.foundVia === 'index' && record.parent !== null) return `listed by ${record.parent}`;
  return record.foundVia === null ? 'unknown' : FOUND_VIA[record.foundVia];
}

/**
 * The counts line above the table: `12 sitemaps: 1 failed, 2 with issues, 9 ok`.
 * @param {Array<Pick<SitemapRecord, 'status'> & Partial<Pick<SitemapRecord, 'vanishedAt'>>>} records
 * @returns {string}
 */
export function sitemapsSummary(records) {
  const of = (/** @type {string} */ word) => records.filter((record) => statusWord(record) === word).length;
  const parts = [`${of('failed')} failed`, `${of('has_issues')} with issues`, `${of('ok')} ok`];
  if (of('vanished') > 0) parts.push(`${of('vanished')} no longer listed`);
  if (of('unread') > 0) parts.push(`${of('unread')} not yet recorded`);
  return `${figure(records.length)} sitemap${records.length === 1 ? '' : 's'}: ${parts.join(', ')}`;
}

/**
 * The indexes and their children as a tree: roots are the records no listed record is the parent of (found via
 * robots.txt, a well-known path, or an index the site no longer has); children in the order given.
 * @param {SitemapRecord[]} records
 * @returns {TreeNode[]}
 */
export function sitemapTree(records) {
  /** @type {Map<string, TreeNode>} */
  const nodes = new Map(records.map((record) => [record.url, { record, children: [] }]));
  /** @type {TreeNode[]} */
  const roots = [];
  for (const node of nodes.values()) {
    const parent = node.record.parent === null ? undefined : nodes.get(node.record.parent);
    if (parent === undefined || parent === node) roots.push(node);
    else parent.children.push(node);
  }
  return roots;
}

/**
 * A finding as one line: `error namespace (1): <urlset> declares no namespace…`.
 * @param {SitemapRecord['findings'][number]} finding
 * @returns {string}
 */
export function findingText(finding) {
  const examples = finding.examples.length > 0 ? ` — e.g. ${finding.examples.join(', ')}` : '';
  return `${finding.severity} ${finding.rule} (${figure(finding.count)}): ${finding.message}${examples}`;
}

/**
 * The points of a sitemap's URL count over its reads, oldest first, scaled into the chart's box.
 * @param {SitemapRead[]} reads newest first, as the API gives them
 * @returns {Array<{ x: number, y: number, read: SitemapRead }>}
 */
export function countPoints(reads) {
  const oldestFirst = [...reads].reverse();
  const max = Math.max(1, ...oldestFirst.map((read) => read.urls));
  const step = oldestFirst.length > 1 ? (CHART_WIDTH - 8) / (oldestFirst.length - 1) : 0;
  return oldestFirst.map((read, i) => ({ x: 4 + step * i, y: 4 + (CHART_HEIGHT - 8) * (1 - read.urls / max), read }));
}

/**
 * @param {string} status
 * @returns {HTMLSpanElement}
 */
function badge(status) {
  const span = document.createElement('span');
  span.className = `badge badge-${status === 'ok' ? 'done' : status === 'has_issues' ? 'stopped' : status === 'failed' ? 'failed' : 'never'}`;
  span.textContent = status;
  return span;
}

/**
 * @param {SitemapRead[]} reads
 * @param {string} url
 * @returns {SVGSVGElement}
 */
function countChart(reads, url) {
  const points = countPoints(reads);
  const svg = /** @type {SVGSVGElement} */ (document.createElementNS(SVG, 'svg'));
  svg.setAttribute('viewBox', `0 0 ${CHART_WIDTH} ${CHART_HEIGHT}`);
  svg.setAttribute('width', '100%');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', `URL count of ${url} over its last ${points.length} read${points.length === 1 ? '' : 's'}`);
  const line = document.createElementNS(SVG, 'polyline');
  line.setAttribute('class', 'trend-line');
  line.setAttribute('points', points.map((point) => `${point.x},${point.y}`).join(' '));
  svg.append(line);
  for (const point of points) {
    const dot = document.createElementNS(SVG, 'circle');
    dot.setAttribute('class', point.read.status === 'failed' ? 'trend-dot failed' : 'trend-dot');
    dot.setAttribute('cx', String(point.x));
    dot.setAttribute('cy', String(point.y));
    dot.setAttribute('r', '3');
    const title = document.createElementNS(SVG, 'title');
    title.textContent = `${shortTime(point.read.readAt)}: ${point.read.status}, ${figure(point.read.urls)} URLs`;
    dot.append(title);
    svg.append(dot);
  }
  return svg;
}

/**
 * @param {TreeNode[]} nodes
 * @returns {HTMLUListElement}
 */
function treeList(nodes) {
  const ul = document.createElement('ul');
  for (const node of nodes) {
    const li = document.createElement('li');
    li.append(badge(statusWord(node.record)), ` ${node.record.url}`);
    if (node.children.length > 0) li.append(treeList(node.children));
    ul.append(li);
  }
  return ul;
}

/**
 * Wires #sitemaps: `show(siteId)` lists the site's sitemaps (every page), a row's Findings button opens its detail.
 * @param {{ api: Api, cell: Cell, button: Button, onError: (message: string) => void }} options
 */
export function createSitemapView({ api, cell, button, onError }) {
  /** @type {string | null} */
  let siteId = null;
  const base = () => `/api/factory/sites/${encodeURIComponent(siteId ?? '')}/sitemaps`;

  /** @param {SitemapDetail} detail */
  function renderDetail(detail) {
    $('#sitemap-detail-title').textContent = `Sitemap ${detail.url}`;
    const items = detail.findings.length > 0 ? detail.findings.map(findingText) : ['No findings.'];
    if (detail.failure !== null) items.unshift(`failed: ${detail.failure.kind}: ${detail.failure.message} (${figure(detail.failStreak)} sync(s) in a row)`);
    $('#sitemap-findings').replaceChildren(
      ...items.map((text) => {
        const li = document.createElement('li');
        li.textContent = text;
        return li;
      }),
    );
    $('#sitemap-chart').replaceChildren(countChart(detail.reads, detail.url));
    $('#sitemap-detail').hidden = false;
  }

  /** @param {SitemapRecord} record */
  async function open(record) {
    try {
      renderDetail(await api(`${base()}/${record.sitemapId}`));
    } catch (error) {
      onError(`Loading sitemap ${record.url} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** @param {SitemapRecord} record */
  function row(record) {
    const tr = document.createElement('tr');
    const status = cell('');
    status.append(badge(statusWord(record)));
    const lastRead = record.lastReadAt === null ? 'never' : shortTime(record.lastReadAt);
    tr.append(
      status,
      cell(record.url, 'url'),
      cell(record.kind ?? ''),
      cell(figure(record.urls)),
      cell(foundViaText(record)),
      cell(figure(record.failStreak)),
      cell(lastRead),
    );
    const actions = document.createElement('td');
    actions.append(button('Findings', () => void open(record), `Findings of ${record.url}`));
    tr.append(actions);
    return tr;
  }

  /** @param {string} id */
  async function show(id) {
    siteId = id;
    $('#sitemap-detail').hidden = true;
    /** @type {SitemapRecord[]} */
    const records = [];
    /** @type {string | null} */
    let cursor = null;
    do {
      /** @type {SitemapPage} */
      const page = await api(`${base()}?limit=1000${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
      if (siteId !== id) return;
      records.push(...page.sitemaps);
      cursor = page.nextCursor;
    } while (cursor !== null);
    $('#sitemaps-summary').textContent = records.length === 0 ? 'No sitemap recorded yet: sync the site.' : sitemapsSummary(records);
    $('#sitemaps-table tbody').replaceChildren(...records.map(row));
    $('#sitemap-tree').replaceChildren(treeList(sitemapTree(records)));
  }

  return { show, reload: () => (siteId === null ? Promise.resolve() : show(siteId)) };
}
