import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isPublicAddress } from '../../src/tools/network-address.ts';

describe('isPublicAddress', () => {
  it('refuses loopback, private, link-local, unspecified and other special IPv4 ranges', () => {
    for (const address of [
      '127.0.0.1',
      '127.255.0.9',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '192.0.2.10',
    ]) {
      assert.equal(isPublicAddress(address), false, address);
    }
  });

  it('refuses the same in IPv6, including IPv4 wrapped in IPv6', () => {
    for (const address of [
      '::1',
      '::',
      '[::1]',
      'fe80::1',
      'fe80::1%eth0',
      'fd12:3456::1',
      'fc00::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:169.254.169.254',
      '::ffff:a9fe:a9fe',
      '64:ff9b::10.0.0.1',
      '2002:c0a8:0101::1',
      '2001:db8::1',
    ]) {
      assert.equal(isPublicAddress(address), false, address);
    }
  });

  it('accepts public unicast addresses', () => {
    for (const address of [
      '8.8.8.8',
      '1.1.1.1',
      '172.32.0.1',
      '2606:4700:4700::1111',
      '::ffff:8.8.8.8',
      '64:ff9b::8.8.8.8',
    ]) {
      assert.equal(isPublicAddress(address), true, address);
    }
  });

  it('refuses anything that is not an address', () => {
    assert.equal(isPublicAddress('example.com'), false);
    assert.equal(isPublicAddress(''), false);
  });
});
