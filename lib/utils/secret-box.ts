import { createCipheriv, createDecipheriv, createHmac, hkdfSync } from 'node:crypto';

/** The shortest deployment secret accepted: 32 characters, as random as a password manager makes them. */
export const MIN_SECRET_LENGTH = 32;

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A sealed value cannot be opened: another key sealed it, or it was altered. */
export class SealError extends Error {
  override name = 'SealError';
}

/**
 * Seals short secrets (a job's request headers) with AES-256-GCM under a key derived from the deployment's secret.
 * The IV is synthetic (an HMAC of the context and the value, as AES-SIV does): the same value sealed for the same
 * context gives the same text, so a retried write of a record compares equal, and no IV is ever reused for two
 * different values. The context (a job id) is authenticated too: a sealed value copied to another record does not open.
 */
export class SecretBox {
  private readonly encryptKey: Buffer;
  private readonly ivKey: Buffer;

  constructor(secret: string) {
    if (secret.length < MIN_SECRET_LENGTH) throw new RangeError(`a secret of at least ${MIN_SECRET_LENGTH} characters is needed`);
    const derive = (info: string) => Buffer.from(hkdfSync('sha256', secret, 'crawler-factory', info, 32));
    this.encryptKey = derive('seal');
    this.ivKey = derive('iv');
  }

  seal(plaintext: string, context: string): string {
    const iv = createHmac('sha256', this.ivKey).update(context).update('\0').update(plaintext).digest().subarray(0, IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.encryptKey, iv).setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  open(sealed: string, context: string): string {
    const [version, packed] = sealed.split('.');
    if (version !== VERSION || packed === undefined) throw new SealError(`not a sealed value of version ${VERSION}`);
    const bytes = Buffer.from(packed, 'base64url');
    if (bytes.length < IV_BYTES + TAG_BYTES) throw new SealError('sealed value too short');
    const decipher = createDecipheriv('aes-256-gcm', this.encryptKey, bytes.subarray(0, IV_BYTES)).setAAD(Buffer.from(context));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SealError('sealed with another key, or altered');
    }
  }
}
