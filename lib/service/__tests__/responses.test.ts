import { describe, expect, it } from 'vitest';
import { FactoryError } from '../../core/errors.js';
import { StoreError } from '../../store/store-errors.js';
import { responseForError } from '../responses.js';

describe('errors as responses', () => {
  it('answers a bug (TypeError) as 500 internal, its message kept from the client, never fetch_failed', async () => {
    const response = responseForError(new TypeError("Cannot read properties of undefined (reading 'secret')"));
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: { kind: 'internal', message: 'internal error' } });
  });

  it('answers an unavailable store as 503 with Retry-After, a corrupt one as 409 without', async () => {
    const unavailable = responseForError(new StoreError('unavailable', 'job store busy (OOM) during claim: retry later'));
    expect(unavailable.status).toBe(503);
    expect(unavailable.headers.get('retry-after')).toBe('2');
    expect(await unavailable.json()).toMatchObject({ error: { kind: 'store_unavailable' } });
    const corrupt = responseForError(new StoreError('corrupt', 'bad record'));
    expect(corrupt.status).toBe(409);
    expect(corrupt.headers.get('retry-after')).toBeNull();
  });

  it('answers a configuration error as 500 config', async () => {
    const response = responseForError(new FactoryError('config', 'FACTORY_JOB_TTL_MS: expected a whole number of milliseconds'));
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({ error: { kind: 'config', message: 'FACTORY_JOB_TTL_MS: expected a whole number of milliseconds' } });
  });
});
