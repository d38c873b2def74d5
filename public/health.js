// The header's service health line: GET /api/factory/health now, on demand, and every HEALTH_POLL_MS after.
import { $, messageOf } from './page.js';

/** @typedef {import('../lib/service/health.js').HealthBody} HealthBody */
/**
 * What `GET /api/factory/health` answers: its health body (200 or 503), or an error alone (401, a proxy's failure).
 * @typedef {Partial<Omit<HealthBody, 'error'>> & { error?: { message?: string } }} HealthReply
 */

const HEALTH_POLL_MS = 10_000;

/**
 * `1 site`, `2 sites`.
 * @param {number} n
 * @param {string} word
 * @returns {string}
 */
export function plural(n, word) {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/**
 * A duration the way an operator reads it: `45 s`, `12 min`, `2.5 h`.
 * @param {number} ms
 * @returns {string}
 */
export function age(ms) {
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

/**
 * One line from the health body (200 or 503): the parts, the queue's engine and depth, running and due syncs, sites.
 * @param {HealthBody} body
 * @returns {string}
 */
export function healthText(body) {
  /** @type {(name: string, p: HealthBody['store'] | HealthBody['database']) => string} */
  const part = (name, p) => `${name} ${p.kind} ${p.ok ? 'ok' : 'down'}`;
  const head = body.ok ? 'Service ok' : `Service degraded: ${body.error?.message ?? 'a part is down'}`;
  const parts = [head, part('store', body.store), part('database', body.database)];
  parts.push(`queue ${body.queue.engine}${body.queue.depth === null ? '' : `, depth ${body.queue.depth}`}`);
  if (body.syncs) {
    /** @type {(ms: number | null) => string} */
    const oldest = (ms) => (ms === null ? '' : ` (oldest ${age(ms)})`);
    parts.push(`${plural(body.syncs.running, 'running sync')}${oldest(body.syncs.oldestRunningAgeMs)}`);
    parts.push(`${plural(body.syncs.due, 'due sync')}${oldest(body.syncs.oldestDueAgeMs)}`);
  }
  if (body.sites !== null && body.sites !== undefined) parts.push(plural(body.sites, 'site'));
  return parts.join(' · ');
}

/**
 * Keeps `#health` current. `token()` gives the bearer token; the returned function checks again at once
 * (after the token changes).
 * @param {() => string} token
 * @returns {() => Promise<void>}
 */
export function watchHealth(token) {
  const box = $('#health');
  /** @type {(text: string, ok: boolean) => void} */
  const show = (text, ok) => {
    box.textContent = text;
    box.classList.toggle('bad', !ok);
  };
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  async function check() {
    clearTimeout(timer);
    try {
      /** @type {Record<string, string>} */
      const headers = token() ? { authorization: `Bearer ${token()}` } : {};
      const response = await fetch('/api/factory/health', { headers });
      /** @type {HealthReply} */
      const body = await response.json().catch(() => ({}));
      if (response.status === 401) show('Service health: enter the API token', false);
      // A body with both parts is the health body, healthy (200) or not (503).
      else if (body.store && body.database) show(healthText(/** @type {HealthBody} */ (body)), body.ok === true);
      else show(`Service health unknown: ${body.error?.message ?? `HTTP ${response.status}`}`, false);
    } catch (error) {
      show(`Service unreachable: ${messageOf(error)}`, false);
    }
    timer = setTimeout(check, HEALTH_POLL_MS);
  }
  void check();
  return check;
}
