// Dashboard passwords: scrypt (a memory-hard KDF from node:crypto) with a random salt per
// password, stored as one self-describing string so the cost can be raised later without a
// migration; checked with a constant-time comparison.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** scrypt cost: N = 2^15, r = 8, p = 1 (32 MiB, ~50-100 ms here): slow for guessing, fine per sign-in. */
export const DEFAULT_SCRYPT_COST = { N: 1 << 15, r: 8, p: 1 } as const;

/** The scrypt parameters of a hash; tests pass a cheap cost. */
export interface ScryptCost {
  N: number;
  r: number;
  p: number;
}

/** Shortest and longest password accepted at sign-up and by `serve accounts password`. */
export const PASSWORD_LENGTH = { min: 10, max: 256 } as const;

const KEY_LENGTH = 32;
const FORMAT = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$/;

function derive(password: string, salt: Buffer, cost: ScryptCost): Promise<Buffer> {
  // 128 * N * r bytes are needed; Node's default ceiling (32 MiB) is exactly too small for N = 2^15.
  const options: ScryptOptions = { ...cost, maxmem: 256 * cost.N * cost.r };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** Use to store a password: `scrypt$N$r$p$salt$hash` (base64), never the password. */
export async function hashPassword(password: string, cost: ScryptCost = DEFAULT_SCRYPT_COST): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, cost);
  return `scrypt$${cost.N}$${cost.r}$${cost.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/** Use to check a sign-in: true when `password` matches `stored`; a malformed stored hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const m = FORMAT.exec(stored);
  if (!m) return false;
  const expected = Buffer.from(m[5]!, 'base64');
  const key = await derive(password, Buffer.from(m[4]!, 'base64'), { N: Number(m[1]), r: Number(m[2]), p: Number(m[3]) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** Use when the account does not exist: the same work as a real check, so timing does not tell. */
export async function burnPasswordCheck(password: string, cost: ScryptCost = DEFAULT_SCRYPT_COST): Promise<false> {
  await derive(password, Buffer.alloc(16), cost);
  return false;
}

/** Why a new password is refused, or undefined when it is acceptable. */
export function passwordProblem(password: string): string | undefined {
  if (password.trim() === '') return 'The password must not be only spaces.';
  const length = [...password].length;
  if (length < PASSWORD_LENGTH.min) return `The password must have at least ${PASSWORD_LENGTH.min} characters.`;
  if (length > PASSWORD_LENGTH.max) return `The password must have at most ${PASSWORD_LENGTH.max} characters.`;
  return undefined;
}
