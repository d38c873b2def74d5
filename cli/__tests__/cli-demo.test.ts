import { describe, expect, it } from 'vitest';
import { demoSiteExpectation } from '../../lib/demo/demo-site.js';
import { ndjson, runCli } from '../../test/helpers/run-cli.js';

describe('crawler-factory demo (the README first command)', () => {
  it('serves the demo site on 127.0.0.1 and discovers every URL it publishes', async () => {
    const expected = demoSiteExpectation({}).all;
    const run = await runCli(['demo'], {}, 120_000);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`discovered ${expected.pageUrls.toLocaleString('en')} page URLs from ${expected.sitemaps} sitemaps`);
    expect(run.stderr).toMatch(/demo site serving on http:\/\/127\.0\.0\.1:\d+/);
  }, 120_000);

  it('streams NDJSON: one url event per entry (alternates inside it), the planted failure, a summary last', async () => {
    const expected = demoSiteExpectation({}).all;
    const run = await runCli(['demo', '--ndjson'], {}, 120_000);
    const events = ndjson(run.stdout);
    expect(events.filter((event) => event.type === 'error')).toEqual([expect.objectContaining({ kind: 'http_status' })]);
    expect(events.filter((event) => event.type === 'url')).toHaveLength(expected.entries);
    expect(events.at(-1)).toMatchObject({ type: 'summary', urls: expected.entries, errors: 1 });
  }, 120_000);
});
