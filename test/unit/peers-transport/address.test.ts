import { describe, expect, it } from 'vitest';
import { onionAddress } from '../../../kernel/crypto/onion.js';
import { kindOfAddress, normalizeAddress, onionTarget } from '../../../kernel/peers/transport.js';

const onion = onionAddress(Buffer.alloc(32, 7));
const label = onion.slice(0, -'.onion'.length);

describe('normalizeAddress', () => {
  it('keeps http and https base addresses in canonical form', () => {
    expect(normalizeAddress('http://Example.COM:8080/')).toBe('http://example.com:8080');
    expect(normalizeAddress('https://example.com:443')).toBe('https://example.com');
    expect(normalizeAddress('http://example.com:80')).toBe('http://example.com');
    expect(normalizeAddress('  https://10.0.0.5:9443 ')).toBe('https://10.0.0.5:9443');
    expect(normalizeAddress('http://[::1]:8080')).toBe('http://[::1]:8080');
  });

  it('refuses paths, queries, credentials, other schemes and bare hosts', () => {
    for (const bad of [
      'http://example.com/eiou',
      'http://example.com/?a=1',
      'http://example.com?',
      'http://example.com/#x',
      'http://user:pw@example.com',
      'ftp://example.com',
      'example.com:8080',
      'example.com',
      '',
      'http://',
    ]) {
      expect(normalizeAddress(bad), bad).toBeNull();
    }
  });

  it('stores onions bare and lower case, stripping any scheme', () => {
    expect(normalizeAddress(onion)).toBe(onion);
    expect(normalizeAddress(onion.toUpperCase())).toBe(onion);
    expect(normalizeAddress(`http://${onion}`)).toBe(onion);
    expect(normalizeAddress(`http://${onion}/`)).toBe(onion);
    expect(normalizeAddress(`https://${onion}`)).toBe(onion);
    expect(normalizeAddress(`${onion}:80`)).toBe(onion);
    expect(normalizeAddress(`http://${onion}:8080`)).toBe(`${onion}:8080`);
  });

  it('accepts only v3 onions with a valid checksum', () => {
    expect(normalizeAddress('expyuzz4wqqyqhjn.onion')).toBeNull(); // v2
    const flipped = (label[0] === 'a' ? 'b' : 'a') + label.slice(1);
    expect(normalizeAddress(`${flipped}.onion`)).toBeNull();
    expect(normalizeAddress(`${label.slice(1)}.onion`)).toBeNull();
    expect(normalizeAddress(`${label}.onion/path`)).toBeNull();
  });
});

describe('kindOfAddress', () => {
  it('tells tor by .onion, else by scheme', () => {
    expect(kindOfAddress(onion)).toBe('tor');
    expect(kindOfAddress(`http://${onion}`)).toBe('tor');
    expect(kindOfAddress('https://peer.example:8443')).toBe('https');
    expect(kindOfAddress('http://127.0.0.1:8080')).toBe('http');
    expect(kindOfAddress('peer.example')).toBeNull();
    expect(kindOfAddress('nonsense.onion')).toBeNull();
  });
});

describe('onionTarget', () => {
  it('uses port 80 unless the address names one', () => {
    expect(onionTarget(onion)).toEqual({ host: onion, port: 80 });
    expect(onionTarget(`${onion}:8080`)).toEqual({ host: onion, port: 8080 });
    expect(onionTarget('http://example.com')).toBeNull();
  });
});
