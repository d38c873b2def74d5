import { z } from 'zod';
import { FactoryError } from '../core/errors.js';
import { SealError, type SecretBox } from '../utils/secret-box.js';
import type { JobMeta, JobMetaInput } from './records.js';
import { StoreError } from './store-errors.js';

/** The variable a deployment seals request headers with (lib/config reads it; named here for messages). */
export const SECRET_KEY_VARIABLE = 'FACTORY_SECRET_KEY';

const HeadersSchema = z.record(z.string(), z.string());

/**
 * A job's request headers (cookies, tokens) leave its meta before a shared store sees it: the meta keeps `{}` and the
 * headers go, sealed, into a key of their own that the store deletes when the job stops running. Returns the meta to
 * store and the sealed headers ('' when there are none).
 */
export function sealJobHeaders(meta: JobMetaInput, box: SecretBox | null): { meta: JobMetaInput; sealed: string } {
  const { headers } = meta.options;
  if (Object.keys(headers).length === 0) return { meta, sealed: '' };
  if (box === null)
    throw new FactoryError(
      'config',
      `a job with request headers needs ${SECRET_KEY_VARIABLE} (32 or more random characters, the same in every process of the deployment): the headers are kept sealed in the job store`,
    );
  return { meta: { ...meta, options: { ...meta.options, headers: {} } }, sealed: box.seal(JSON.stringify(headers), meta.jobId) };
}

/** The stored meta with its sealed headers put back (none once the job has ended: it reads no more sitemaps). */
export function openJobHeaders(meta: JobMeta, sealed: string | null, box: SecretBox | null, key: string): JobMeta {
  if (sealed === null || sealed === '') return meta;
  if (box === null)
    throw new FactoryError(
      'config',
      `job ${meta.jobId} was given request headers, sealed in the job store: set ${SECRET_KEY_VARIABLE} to the key it was created with`,
    );
  let text: string;
  try {
    text = box.open(sealed, meta.jobId);
  } catch (error) {
    if (!(error instanceof SealError)) throw error;
    throw new FactoryError(
      'config',
      `job ${meta.jobId}'s request headers do not open with this ${SECRET_KEY_VARIABLE} (${error.message}): use the key it was created with`,
    );
  }
  const headers = HeadersSchema.safeParse(JSON.parse(text));
  if (!headers.success) throw new StoreError('corrupt', `record ${key} does not hold request headers`, { key });
  return { ...meta, options: { ...meta.options, headers: headers.data } };
}
