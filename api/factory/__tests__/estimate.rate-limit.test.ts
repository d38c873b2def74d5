// The estimate under load: beyond FACTORY_ESTIMATE_CONCURRENCY estimates at once, the handler answers 429
// `rate_limited` with Retry-After instead of queueing; a slot frees when an estimate ends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, type LoopbackServer } from '../../../lib/demo/loopback-server.js';
import { expectError, postRequest } from '../../../lib/service/__tests__/http-fixtures.js';
import { ScopeEstimateSchema } from '../../../lib/core/types.js';
import { testDeployment, type TestDeployment } from '../../../lib/service/__tests__/test-deployment.js';
import * as estimateRoute from '../estimate.js';

const ESTIMATE = '/api/factory/estimate';

describe('estimate concurrency', () => {
  let site: LoopbackServer;
  let deployment: TestDeployment;
  let estimate: ReturnType<typeof estimateRoute.routes>;

  beforeAll(async () => {
    // A site whose robots.txt never answers: every estimate holds its slot until its deadline.
    site = await startLoopbackServer(() => ({ delayMs: 20_000, body: '' }));
    deployment = testDeployment({ FACTORY_ALLOW_HOSTS: `127.0.0.1:${site.port}`, FACTORY_ESTIMATE_CONCURRENCY: '2' });
    estimate = estimateRoute.routes(deployment.source);
  });
  afterAll(async () => {
    await deployment?.release();
    await site.close();
  });

  it('answers 429 rate_limited with Retry-After beyond the configured concurrency, then serves again once a slot is free', async () => {
    const call = () => estimate.POST(postRequest(ESTIMATE, { rootUrl: `${site.origin}/` }));
    const running = [call(), call()];
    const refused = await call();
    expect(refused.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    await expectError(refused, 429, 'rate_limited');
    const answers = await Promise.all(running);
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(ScopeEstimateSchema.parse(await answer.json()).transport).toBe('playwright');
    }
    const again = await call();
    expect(again.status).toBe(200);
  });

  it('refuses a malformed FACTORY_ESTIMATE_CONCURRENCY as a configuration error, not a caller error', async () => {
    await deployment.configure({ FACTORY_ESTIMATE_CONCURRENCY: 'many' });
    try {
      const response = await estimate.POST(postRequest(ESTIMATE, { rootUrl: `${site.origin}/` }));
      expect(response.status).toBe(500);
    } finally {
      await deployment.configure(null);
    }
  });
});
