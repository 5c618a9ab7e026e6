import { describe, expect, it } from 'vitest';
import { allowedHostsFor, clientOf, hostAllowed, LOCAL_HOSTS } from './proxy.js';

const TRUST = { trusted: ['10.0.0.1', 'loopback'] };

describe('clientOf', () => {
  it('believes X-Forwarded-For and -Proto only from a trusted proxy, read from the right', () => {
    const h = { 'x-forwarded-for': '6.6.6.6, 203.0.113.7', 'x-forwarded-proto': 'https' };
    expect(clientOf('10.0.0.1', h, TRUST)).toEqual({ address: '203.0.113.7', https: true });
    expect(clientOf('::ffff:127.0.0.1', h, TRUST)).toEqual({ address: '203.0.113.7', https: true });
    // Anyone else may write what they like: ignored.
    expect(clientOf('198.51.100.2', h, TRUST)).toEqual({ address: '198.51.100.2', https: false });
    expect(clientOf('10.0.0.1', h, undefined)).toEqual({ address: '10.0.0.1', https: false });
  });

  it('skips our own proxies in the chain and stops at garbage', () => {
    expect(clientOf('10.0.0.1', { 'x-forwarded-for': '203.0.113.7, 127.0.0.1' }, TRUST).address).toBe('203.0.113.7');
    expect(clientOf('10.0.0.1', { 'x-forwarded-for': 'not-an-ip' }, TRUST).address).toBe('10.0.0.1');
    expect(clientOf('10.0.0.1', {}, TRUST)).toEqual({ address: '10.0.0.1', https: false });
    expect(clientOf('10.0.0.1', { 'x-forwarded-proto': 'http' }, TRUST).https).toBe(false);
  });
});

describe('hostAllowed', () => {
  it('on loopback allows IP literals, dot-less names and the public host, refuses other domains (DNS rebinding)', () => {
    const allowedHosts = allowedHostsFor('127.0.0.1', new URL('https://data.example.com'), []);
    const s = { trusted: [], allowedHosts };
    for (const ok of ['127.0.0.1:8787', 'localhost:8787', '[::1]:8787', 'x', 'DATA.example.com', 'data.example.com:443']) expect(hostAllowed(ok, s), ok).toBe(true);
    for (const bad of ['evil.example.net:8787', 'rebind.attacker.io']) expect(hostAllowed(bad, s), bad).toBe(false);
  });

  it('elsewhere allows any host unless names are given', () => {
    expect(allowedHostsFor('0.0.0.0', undefined, [])).toBeUndefined();
    const allowedHosts = allowedHostsFor('0.0.0.0', undefined, ['api.example.com']);
    expect(allowedHosts).toEqual([LOCAL_HOSTS, 'api.example.com']);
    expect(hostAllowed('api.example.com', { trusted: [], allowedHosts })).toBe(true);
    expect(hostAllowed('other.example.com', { trusted: [], allowedHosts })).toBe(false);
  });
});
