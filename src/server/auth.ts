// Credentials middleware: reads the key from `X-API-Key` or `Authorization: Bearer`, looks it up
// by its sha256 hash (the only form the store holds) and checks key and account state.
import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { hashApiKey } from '../accounts/api-key.js';
import type { Account, ApiKeyRecord, Store } from '../store/store.js';
import { HttpException } from './http-error.js';

/** A caller whose key passed every check. */
export interface Caller {
  key: ApiKeyRecord;
  account: Account;
}

/** How a key is turned into what the store holds; `hashApiKey` (sha256 hex) unless a test swaps it. */
export type KeyHasher = (key: string) => string;

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

function unauthorized(
  message: string,
  kind: 'auth_missing' | 'auth_invalid' | 'auth_expired' = 'auth_invalid',
  challenge = 'Bearer error="invalid_token"',
): HttpException {
  return new HttpException(401, message, {}, { 'WWW-Authenticate': challenge }, { kind });
}

/** The key a request carries, or undefined; 400 for two different keys, 401 for a malformed Authorization. */
export function presentedKey(headers: IncomingHttpHeaders): string | undefined {
  const rawApiKey = headers['x-api-key'];
  const apiKey = (Array.isArray(rawApiKey) ? rawApiKey.join(', ') : rawApiKey)?.trim() || undefined;
  const authorization = headers.authorization?.trim();
  let bearer: string | undefined;
  if (authorization) {
    const m = BEARER.exec(authorization);
    if (!m) throw unauthorized('The Authorization header must be "Bearer <API key>".');
    bearer = m[1];
  }
  if (apiKey !== undefined && bearer !== undefined && apiKey !== bearer) {
    throw new HttpException(400, 'X-API-Key and Authorization carry different keys; send one key.', {}, {}, { kind: 'two_keys' });
  }
  return apiKey ?? bearer;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** Use first on every request: the caller behind the key, or a 400/401 HttpException saying why not. */
export async function authenticate(headers: IncomingHttpHeaders, store: Store, now: number, hash: KeyHasher = hashApiKey): Promise<Caller> {
  const key = presentedKey(headers);
  if (key === undefined) {
    throw unauthorized('An API key is required: send X-API-Key: <key> or Authorization: Bearer <key>.', 'auth_missing', 'Bearer');
  }
  const keyHash = hash(key);
  // The key and its account in one read: over PostgreSQL one round trip, not two, on every request.
  const found = await store.findKeyWithAccount(keyHash);
  // The lookup is by a uniform hash, so its timing says nothing about the key; when the store
  // hands the hash back we still compare it in constant time rather than trust the index alone.
  if (!found || (found.keyHash !== undefined && !sameHash(found.keyHash, keyHash))) {
    throw unauthorized('Invalid API key.');
  }
  const { account, ...record } = found;
  if (record.revokedAt !== null && record.revokedAt <= now) {
    throw unauthorized(`This API key was revoked on ${iso(record.revokedAt)}.`);
  }
  if (record.expiresAt !== null && record.expiresAt <= now) {
    throw unauthorized(`This API key expired on ${iso(record.expiresAt)}.`, 'auth_expired');
  }
  if (account.trialEndsAt !== null && account.trialEndsAt <= now) {
    throw unauthorized(`The free trial of this account ended on ${iso(account.trialEndsAt)}; upgrade to keep access.`, 'auth_expired');
  }
  return { key: record, account };
}

function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
