// A site's URL count and changes over its last finished syncs: an inline SVG chart and a table of the same numbers.
import { $ } from './page.js';
import { figure } from './sync-progress.js';

/** @typedef {import('../lib/inventory/schemas.js').Sync} Sync */
/** @typedef {{ ended: string, urls: number, new: number, changed: number, returned: number, removed: number }} TrendRow */

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 480;
const LINE_HEIGHT = 70;
const BAR_HEIGHT = 40;
const PAD = 4;
// Each band has its label above it.
const LABEL = 14;

/**
 * A finished sync's figures: live URLs after it (seen, kept unchanged, kept unread) and what it changed.
 * @param {Sync} sync
 * @returns {TrendRow}
 */
export function syncFigures(sync) {
  return {
    ended: sync.finishedAt ?? sync.updatedAt,
    urls: sync.seen + sync.kept + sync.keptUnread,
    new: sync.new,
    changed: sync.changed,
    returned: sync.returned,
    removed: sync.removed,
  };
}

/**
 * What a sync changed, all told: new, changed, returned and removed URLs.
 * @param {TrendRow} row
 * @returns {number}
 */
export const changes = (row) => row.new + row.changed + row.returned + row.removed;

/**
 * @param {keyof SVGElementTagNameMap} name
 * @param {Record<string, string | number>} attributes
 * @param {string} [text]
 * @returns {SVGElement}
 */
function node(name, attributes, text) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  if (text !== undefined) element.textContent = text;
  return element;
}

// The URL count as a line over the top band, the changes as bars under it; each point and bar has its own tooltip.
/**
 * @param {TrendRow[]} rows
 * @returns {SVGElement}
 */
function chart(rows) {
  const step = (WIDTH - 2 * PAD) / Math.max(rows.length, 1);
  /** @type {(i: number) => number} */
  const x = (i) => PAD + step * (i + 0.5);
  const maxUrls = Math.max(...rows.map((row) => row.urls), 1);
  const maxChanges = Math.max(...rows.map(changes), 1);
  /** @type {(urls: number) => number} */
  const y = (urls) => LABEL + (LINE_HEIGHT - LABEL - PAD) * (1 - urls / maxUrls);
  const barBottom = LINE_HEIGHT + LABEL + BAR_HEIGHT;
  const name = `URL count and changes over the last ${rows.length} finished sync${rows.length === 1 ? '' : 's'} (figures in the table below)`;
  const svg = node('svg', { viewBox: `0 0 ${WIDTH} ${barBottom}`, width: '100%', role: 'img', 'aria-label': name });
  svg.append(node('polyline', { class: 'trend-line', points: rows.map((row, i) => `${x(i)},${y(row.urls)}`).join(' ') }));
  rows.forEach((row, i) => {
    const dot = node('circle', { class: 'trend-dot', cx: x(i), cy: y(row.urls), r: 3 });
    dot.append(node('title', {}, `${figure(row.urls)} URLs`));
    const height = BAR_HEIGHT * (changes(row) / maxChanges);
    const bar = node('rect', { class: 'trend-bar', x: x(i) - step * 0.3, y: barBottom - height, width: step * 0.6, height });
    bar.append(node('title', {}, `${figure(changes(row))} changes`));
    svg.append(dot, bar);
  });
  svg.append(
    node('text', { class: 'trend-label', x: PAD, y: LABEL - 4 }, `URLs (max ${figure(maxUrls)})`),
    node('text', { class: 'trend-label', x: PAD, y: LINE_HEIGHT + LABEL - 4 }, `changes (max ${figure(maxChanges)})`),
  );
  return svg;
}

/**
 * @param {TrendRow} row
 * @returns {HTMLTableRowElement}
 */
function tableRow(row) {
  const tr = document.createElement('tr');
  const values = [row.ended.slice(0, 16).replace('T', ' '), ...[row.urls, row.new, row.changed, row.returned, row.removed].map(figure)];
  tr.append(
    ...values.map((value, i) => {
      const cell = document.createElement(i === 0 ? 'th' : 'td');
      if (i === 0) cell.scope = 'row';
      cell.textContent = value;
      return cell;
    }),
  );
  return tr;
}

/**
 * Draws #trend-chart and fills #trend-table from a site's syncs (newest first, as the API lists them); only `done` ones count.
 * @param {Sync[]} syncs
 */
export function renderTrend(syncs) {
  const rows = syncs
    .filter((sync) => sync.state === 'done')
    .reverse()
    .map(syncFigures);
  $('#trend-empty').hidden = rows.length > 0;
  $('#trend-chart').replaceChildren(...(rows.length ? [chart(rows)] : []));
  $('#trend-table').hidden = rows.length === 0;
  $('#trend-table tbody').replaceChildren(...rows.map(tableRow));
}
