import { describe, expect, it } from 'vitest';
import { checkListenAddress, isLoopbackHost } from '../listen-policy.js';

describe('which listen addresses are loopback', () => {
  it.each(['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST', 'api.localhost', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1'])(
    '%s is loopback',
    (host) => {
      expect(isLoopbackHost(host)).toBe(true);
    },
  );

  it.each(['0.0.0.0', '::', '[::]', '192.168.1.10', '10.0.0.1', 'example.com', 'localhost.example.com', '::ffff:10.0.0.1', '128.0.0.1', ''])(
    '%s is not',
    (host) => {
      expect(isLoopbackHost(host)).toBe(false);
    },
  );
});

describe('starting serve without a token', () => {
  it('starts on loopback without a token', () => {
    expect(checkListenAddress({ host: '127.0.0.1', hasToken: false, insecure: false })).toEqual({ loopback: true, refusal: null });
  });

  it('refuses a network address without a token, and says what to do', () => {
    const decision = checkListenAddress({ host: '0.0.0.0', hasToken: false, insecure: false });
    expect(decision.loopback).toBe(false);
    expect(decision.refusal).toMatch(/FACTORY_API_TOKEN.*--insecure/);
  });

  it('starts on a network address with a token, or with --insecure', () => {
    expect(checkListenAddress({ host: '0.0.0.0', hasToken: true, insecure: false }).refusal).toBeNull();
    expect(checkListenAddress({ host: '::', hasToken: false, insecure: true }).refusal).toBeNull();
  });
});
