import { describe, expect, it } from 'vitest';
import { wechatPay } from '../../../builtin-plugins/payback-methods/rails/fintech/company-rails.js';
import { expectFailures, expectValid } from './helpers.js';

const wx = (identifier_type: string, identifier: string) => ({ identifier_type, identifier });

describe('wechat_pay rail', () => {
  it.each([
    ['wechat_id', 'jane_doe-88'],
    ['wechat_id', 'abcdef'],
    ['phone', '+8613812345678'],
    ['email', 'li.na@example.cn'],
  ])('accepts %s %s', (type, identifier) => expectValid(wechatPay, wx(type, identifier), 'CNY'));

  it.each([
    ['a WeChat ID starting with a digit', 'wechat_id', '8jane_doe', 'invalid_format'],
    ['a WeChat ID of 5 characters', 'wechat_id', 'janed', 'invalid_length'],
    ['a WeChat ID of 21 characters', 'wechat_id', `j${'a'.repeat(20)}`, 'invalid_length'],
    ['a WeChat ID with a dot', 'wechat_id', 'jane.doe', 'invalid_format'],
  ])('rejects %s', (_name, type, identifier, code) => expectFailures(wechatPay, wx(type, identifier), 'CNY', ['identifier', code]));

  it('settles in CNY and masks', () => {
    expectFailures(wechatPay, wx('wechat_id', 'jane_doe-88'), 'USD', ['currency', 'unsupported_currency']);
    expect(wechatPay.mask(wx('wechat_id', 'jane_doe-88'))).toBe('WeChat Pay •••• e-88');
  });
});
