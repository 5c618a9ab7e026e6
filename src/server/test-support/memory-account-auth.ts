// The dashboard's half of MemoryStore (passwords, sessions, plan changes), kept apart so each file holds one store.
import type { AccountAuthStore, PlanChange, SessionRecord } from '../../store/account-auth-store.js';
import type { Account, ApiKeyRecord } from '../../store/store.js';

/** The dashboard's records for MemoryStore: plain maps, the same rules as the SQLite ones. */
export class MemoryAccountAuth implements AccountAuthStore {
  private readonly passwords = new Map<number, string>();
  private readonly sessions = new Map<string, SessionRecord>();

  constructor(
    private readonly accounts: () => Account[],
    private readonly keys: () => ApiKeyRecord[],
  ) {}

  async passwordHash(accountId: number): Promise<string | undefined> {
    return this.passwords.get(accountId);
  }

  async setPasswordHash(accountId: number, hash: string): Promise<void> {
    this.passwords.set(accountId, hash);
    for (const [token, s] of this.sessions) if (s.accountId === accountId) this.sessions.delete(token);
  }

  async createSession(s: SessionRecord): Promise<void> {
    this.sessions.set(s.tokenHash, { ...s });
  }

  async findSession(tokenHash: string, now: number): Promise<SessionRecord | undefined> {
    const s = this.sessions.get(tokenHash);
    if (s && s.expiresAt <= now) this.sessions.delete(tokenHash);
    return s && s.expiresAt > now ? { ...s } : undefined;
  }

  async deleteSession(tokenHash: string): Promise<void> {
    this.sessions.delete(tokenHash);
  }

  async setPlan(accountId: number, change: PlanChange): Promise<Account | undefined> {
    const a = this.accounts().find((x) => x.id === accountId);
    if (!a) return undefined;
    Object.assign(a, change);
    return { ...a };
  }

  async keysOf(accountId: number): Promise<ApiKeyRecord[]> {
    return this.keys()
      .filter((k) => k.accountId === accountId)
      .map((k) => ({ ...k }));
  }

  async listAccounts(): Promise<(Account & { hasPassword: boolean })[]> {
    return [...this.accounts()].sort((x, y) => x.name.localeCompare(y.name)).map((a) => ({ ...a, hasPassword: this.passwords.has(a.id) }));
  }
}
