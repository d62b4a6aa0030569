import { describe, expect, it } from 'vitest';
import { ownAddressIn } from '../../../builtin-plugins/mcp-passthrough/upstream/self.js';

const onion = 'oosqt3yivtxmpbwwalwgpcjvijvlo62fsydi3zwhkxrkaqfgfiewdkyd.onion';
const node = {
  addresses: { http: 'http://203.0.113.7:8080', https: 'https://203.0.113.7:8080', tor: onion },
  listener: { host: '127.0.0.1', port: 8080 },
};

describe('ownAddressIn: an upstream endpoint that is the node itself', () => {
  it('names the node by any of its addresses, the onion one included (it has no scheme)', () => {
    expect(ownAddressIn('http://203.0.113.7:8080/v1', node)).toBe('203.0.113.7:8080');
    expect(ownAddressIn(`http://${onion}/v1`, node)).toBe(onion);
    expect(ownAddressIn('http://127.0.0.1:8080/v1', node)).toBe('127.0.0.1:8080');
  });

  it('leaves other endpoints alone, with a Tor address announced', () => {
    expect(ownAddressIn('http://127.0.0.1:8081/v1', node)).toBeNull();
    expect(ownAddressIn('https://api.example.com/v1', node)).toBeNull();
  });
});
