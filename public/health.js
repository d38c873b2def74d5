// The header's service health line: GET /api/factory/health now, on demand, and every HEALTH_POLL_MS after.
const HEALTH_POLL_MS = 10_000;

function plural(n, word) {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function age(ms) {
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

/** One line from the health body (200 or 503): the parts, the queue's engine and depth, running and due syncs, sites. */
export function healthText(body) {
  const part = (name, p) => `${name} ${p.kind} ${p.ok ? 'ok' : 'down'}`;
  const head = body.ok ? 'Service ok' : `Service degraded: ${body.error?.message ?? 'a part is down'}`;
  const parts = [head, part('store', body.store), part('database', body.database)];
  parts.push(`queue ${body.queue.engine}${body.queue.depth === null ? '' : `, depth ${body.queue.depth}`}`);
  if (body.syncs) {
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
 */
export function watchHealth(token) {
  const box = document.querySelector('#health');
  const show = (text, ok) => {
    box.textContent = text;
    box.classList.toggle('bad', !ok);
  };
  let timer = null;
  async function check() {
    clearTimeout(timer);
    try {
      const headers = token() ? { authorization: `Bearer ${token()}` } : {};
      const response = await fetch('/api/factory/health', { headers });
      const body = await response.json().catch(() => ({}));
      if (response.status === 401) show('Service health: enter the API token', false);
      else if (body.store && body.database) show(healthText(body), body.ok === true);
      else show(`Service health unknown: ${body.error?.message ?? `HTTP ${response.status}`}`, false);
    } catch (error) {
      show(`Service unreachable: ${error.message}`, false);
    }
    timer = setTimeout(check, HEALTH_POLL_MS);
  }
  void check();
  return check;
}
