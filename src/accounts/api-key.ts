// API keys: how they look, how they are hashed for storage, and what of them may be shown.
import { createHash, randomBytes } from 'node:crypto';

/** Every key starts with this, so a leaked key is recognisable (secret scanners, logs). */
const API_KEY_PREFIX = 'msk_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_BODY_LENGTH = 40;

/** Use to mint a new key: `msk_` + 40 base62 characters (about 238 bits from crypto.randomBytes). */
export function generateApiKey(): string {
  let body = '';
  while (body.length < KEY_BODY_LENGTH) {
    for (const byte of randomBytes(KEY_BODY_LENGTH * 2)) {
      // 248 = 4 * 62: rejecting the rest keeps every character equally likely.
      if (byte < 248 && body.length < KEY_BODY_LENGTH) body += BASE62[byte % 62];
    }
  }
  return API_KEY_PREFIX + body;
}

/** The only form in which a key is stored or compared: sha256 hex. The server's auth uses exactly this. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** A non-secret display prefix (`msk_3f9a`), stored next to the hash for `keys list`. */
export function keyPrefix(key: string): string {
  return key.slice(0, API_KEY_PREFIX.length + 4);
}
