import { Receiver } from '@upstash/qstash';
import type { QStashSigningKeys } from '../../config/factory-config.js';
import { RequestError } from '../../core/errors.js';

/** The header QStash signs its calls in: a JWT over the destination URL and the body's SHA-256. */
export const SIGNATURE_HEADER = 'upstash-signature';

/**
 * Verifies that `body` came from QStash: the signature header checked with the current signing key, then the next
 * (key rotation). A bad signature is a 401 `unauthorized`.
 */
export async function verifyQStashSignature(keys: QStashSigningKeys, signature: string, body: string): Promise<void> {
  // devMode off: the SDK would otherwise swap in its local development keys when QSTASH_DEV is set.
  const receiver = new Receiver({ ...keys, devMode: false });
  try {
    await receiver.verify({ signature, body });
  } catch {
    throw new RequestError('unauthorized', `invalid ${SIGNATURE_HEADER}: the call is not signed by QStash with this deployment's keys`);
  }
}
