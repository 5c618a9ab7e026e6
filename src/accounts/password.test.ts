import { describe, expect, it } from 'vitest';
import { burnPasswordCheck, DEFAULT_SCRYPT_COST, hashPassword, passwordProblem, verifyPassword } from './password.js';

const CHEAP = { N: 1 << 10, r: 8, p: 1 };

describe('passwords', () => {
  it('stores scrypt with a fresh salt, never the password', async () => {
    const a = await hashPassword('correct horse battery', CHEAP);
    const b = await hashPassword('correct horse battery', CHEAP);
    expect(a).toMatch(/^scrypt\$1024\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('horse');
  });

  it('accepts the right password and refuses others, a tampered hash and garbage', async () => {
    const stored = await hashPassword('correct horse battery', CHEAP);
    expect(await verifyPassword('correct horse battery', stored)).toBe(true);
    expect(await verifyPassword('correct horse batterY', stored)).toBe(false);
    expect(await verifyPassword('', stored)).toBe(false);
    const parts = stored.split('$');
    parts[5] = Buffer.alloc(32, 1).toString('base64');
    expect(await verifyPassword('correct horse battery', parts.join('$'))).toBe(false);
    expect(await verifyPassword('correct horse battery', 'plain')).toBe(false);
    expect(await burnPasswordCheck('x', CHEAP)).toBe(false);
  });

  it('treats composed and decomposed accents as the same password', async () => {
    const stored = await hashPassword('caf\u00e9 au lait!!', CHEAP);
    expect(await verifyPassword('cafe\u0301 au lait!!', stored)).toBe(true);
  });

  it('uses the default cost, which needs more than Node\'s default scrypt memory', async () => {
    const stored = await hashPassword('correct horse battery');
    expect(stored.startsWith(`scrypt$${DEFAULT_SCRYPT_COST.N}$8$1$`)).toBe(true);
    expect(await verifyPassword('correct horse battery', stored)).toBe(true);
  });

  it('refuses short and huge passwords', () => {
    expect(passwordProblem('short')).toMatch(/at least 10/);
    expect(passwordProblem('x'.repeat(257))).toMatch(/at most 256/);
    expect(passwordProblem('long enough pw')).toBeUndefined();
  });
});
