import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { loadPlugin, railProblems } from 'wallet-node/sdk/testing';

// index.ts bundled as `node-cli plugin build` does and run in an isolate as the node runs it; no node needed.
const plugin = await loadPlugin(new URL('.', import.meta.url));
after(() => plugin.stop());
const rail = plugin.rail('au_bank');

test('au_bank keeps the contract every payback rail keeps (the shared vectors)', () => {
  assert.deepEqual(railProblems(rail), []);
});

test('a BSB and account number are taken in their usual spellings and stored in one', () => {
  const fields = { account_name: 'Jane Mary Citizen', bsb: '062 000', account_number: '1234-5678' };
  assert.deepEqual(rail.validate(fields, 'AUD'), []);
  assert.deepEqual(rail.normalize(fields, 'AUD'), { account_name: 'Jane Mary Citizen', bsb: '062-000', account_number: '12345678' });
  assert.equal(rail.mask({ ...fields, bsb: '062-000', account_number: '12345678' }), 'AU BSB 062-000 •••• 5678 (J. Citizen)');
});

test('each wrong field is named with its code', () => {
  const errors = rail.validate({ account_name: 'Jo', bsb: '000-000', account_number: '12' }, 'NZD');
  assert.deepEqual(errors.map((e) => [e.field, e.code]), [
    ['currency', 'unsupported_currency'],
    ['bsb', 'invalid_value'],
    ['account_number', 'invalid_length'],
  ]);
});
