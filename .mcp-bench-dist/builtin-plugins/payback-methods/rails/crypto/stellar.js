/**
 * `stellar`: XLM, or an issued asset (code + issuer account), to a Stellar account. Memos are MEMO_TEXT,
 * which the network caps at 28 bytes.
 */
import { memoField, stringField } from '../common/fields.js';
import { precisionOf } from '../common/precision.js';
import { buildRail } from '../common/rail.js';
import { checkStellarAccount } from '../codecs/stellar-strkey.js';
import { addressField, addressSummary } from './shared.js';
import { applyTokenRule } from './token-rule.js';
const MEMO_BYTES = 28;
export const stellar = buildRail({
    id: 'stellar',
    catalog: {
        id: 'stellar',
        label: 'Stellar',
        fields: [
            addressField('Stellar account (G...)', 56),
            memoField('memo', 'Memo (text, 28 bytes)', MEMO_BYTES),
            stringField('issuer', 'Asset issuer (for issued assets)', { maxLength: 56 }),
        ],
        currencies: { rule: 'XLM, or an asset code of 1-12 letters or digits (optionally with its issuer account)' },
    },
    read(reader, currency) {
        reader.only(['address', 'memo', 'issuer']);
        reader.string('address', { required: true, check: checkStellarAccount });
        reader.text('memo', { required: false, maxLength: MEMO_BYTES, maxBytes: MEMO_BYTES });
        applyTokenRule(reader, currency, {
            native: 'XLM',
            tokenField: 'issuer',
            chain: 'Stellar',
            symbolLength: [1, 12],
            readToken: (r) => r.string('issuer', { required: false, check: checkStellarAccount }),
        });
    },
    mask: (fields) => addressSummary('Stellar', fields['address']),
    // Every Stellar amount, native or issued, has 7 decimal places (one stroop is 10^-7).
    precision: () => precisionOf(7),
});
//# sourceMappingURL=stellar.js.map