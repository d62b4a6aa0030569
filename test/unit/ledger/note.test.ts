import { describe, expect, it } from 'vitest';
import { noteCap, paymentDescription } from '../../../builtin-plugins/payment-requests/note.js';

describe('payment request description rule', () => {
  it('joins the requester description and the note behind the prefix', () => {
    expect(paymentDescription('March rent', 'paid early')).toEqual({ ok: true, description: 'payment: March rent | paid early', note: 'paid early' });
  });

  it('without a note (absent, empty or blank) keeps the requester description as it is', () => {
    for (const note of [undefined, null, '', '   ', '\t\n']) {
      expect(paymentDescription('March rent', note)).toEqual({ ok: true, description: 'March rent', note: null });
    }
    expect(paymentDescription(null, null)).toEqual({ ok: true, description: null, note: null });
  });

  it('drops the prefix when the whole would pass 255 characters, and never passes 255', () => {
    const desc = 'd'.repeat(240);
    const note = 'n'.repeat(12); // the cap: 255 - 240 - 3
    const r = paymentDescription(desc, note);
    expect(r).toEqual({ ok: true, description: `${desc} | ${note}`, note });
    if (r.ok) expect(r.description!.length).toBe(255);
    // Just short enough for the prefix: 9 + 240 + 3 + 3 = 255.
    const short = paymentDescription('d'.repeat(240), 'abc');
    expect(short.ok && short.description).toBe(`payment: ${'d'.repeat(240)} | abc`);
  });

  it('refuses a note over the cap, saying there is no room when the budget is used up', () => {
    expect(noteCap('d'.repeat(240))).toBe(12);
    const over = paymentDescription('d'.repeat(240), 'n'.repeat(13));
    expect(over).toMatchObject({ ok: false, cap: 12 });
    const none = paymentDescription('d'.repeat(252), 'x');
    expect(none.ok).toBe(false);
    if (!none.ok) expect(none.message).toMatch(/leaves no room/);
    const full = paymentDescription('d'.repeat(255), 'x');
    expect(full).toMatchObject({ ok: false, cap: 0 });
  });

  it('with no requester description the note follows the prefix alone', () => {
    expect(paymentDescription(null, 'thanks')).toEqual({ ok: true, description: 'payment: thanks', note: 'thanks' });
    const long = 'n'.repeat(252);
    expect(paymentDescription('', long)).toEqual({ ok: true, description: long, note: long });
  });

  it('counts code points, not UTF-16 units', () => {
    const desc = '€'.repeat(240);
    expect(paymentDescription(desc, '😀'.repeat(12)).ok).toBe(true);
    expect(paymentDescription(desc, '😀'.repeat(13)).ok).toBe(false);
  });
});
