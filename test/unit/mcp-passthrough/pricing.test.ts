import { describe, expect, it } from 'vitest';
import { charge, customerRates, estimateInputTokens, inputTokenBound, rate, responseBytesBound } from '../../../builtin-plugins/mcp-passthrough/pricing.js';
import type { ModelRow } from '../../../builtin-plugins/mcp-passthrough/store.js';

const row = (over: Partial<ModelRow>): ModelRow => ({
  providerId: 'p',
  id: 'm',
  label: 'm',
  enabled: true,
  pricingMode: 'manual',
  markupPct: '0',
  costInPer1m: '0',
  costOutPer1m: '0',
  costXferPerGb: '0',
  costCurrency: null,
  manualInPer1m: '0',
  manualOutPer1m: '0',
  manualXferPerGb: '0',
  maxOutputTokens: null,
  ...over,
});

describe('pricing', () => {
  it('charges tokens per million and bytes per gigabyte, summed exactly and cut once', () => {
    const rates = { inPer1m: rate('1.23456789'), outPer1m: rate('9.87654321'), xferPerGb: rate('0.5') };
    // 7 × 1.23456789 / 1e6 + 11 × 9.87654321 / 1e6 + 1234 × 0.5 / 1e9 = 0.00011790095054 → 0.0001179
    expect(charge(rates, { inputTokens: 7, outputTokens: 11, transferBytes: 1234 })).toBe(11790n);
    expect(charge(rates, { inputTokens: 0, outputTokens: 0, transferBytes: 0 })).toBe(0n);
    // Exactly one unit: nothing lost at the boundary.
    expect(charge({ inPer1m: rate('1'), outPer1m: 0n, xferPerGb: 0n }, { inputTokens: 10_000, outputTokens: 0, transferBytes: 0 })).toBe(1_000_000n);
    expect(charge({ inPer1m: 0n, outPer1m: 0n, xferPerGb: rate('1') }, { inputTokens: 0, outputTokens: 0, transferBytes: 1_000_000_000 })).toBe(100_000_000n);
  });

  it('derives markup rates from costs, cut to 8 decimals; manual rates are used as given', () => {
    const markup = customerRates(row({ pricingMode: 'markup', markupPct: '33.333', costInPer1m: '0.00000003', costOutPer1m: '10', costXferPerGb: '1' }));
    expect(markup.inPer1m).toBe(3n); // 0.00000003 × 1.33333 = 0.0000000399999 → 0.00000003
    expect(markup.outPer1m).toBe(1_333_330_000n);
    expect(markup.xferPerGb).toBe(133_333_000n);
    const manual = customerRates(row({ pricingMode: 'manual', manualInPer1m: '2.5', costInPer1m: '100' }));
    expect(manual.inPer1m).toBe(250_000_000n);
  });

  it('bounds input tokens above any tokenizer and estimates at four bytes a token', () => {
    const messages = [{ content: 'héllo' }, { content: '' }];
    expect(inputTokenBound(messages)).toBe(6 + 16 + 0 + 16 + 16);
    expect(estimateInputTokens(messages)).toBe(2 + 4 + 0 + 4);
    expect(responseBytesBound(10)).toBe(8192 + 5120);
  });
});
