/** `solana`: SOL, or an SPL token identified by its mint address, to a Solana account. */
import { memoField, readMemo, stringField } from '../common/fields.js';
import { precisionOf } from '../common/precision.js';
import { buildRail } from '../common/rail.js';
import { checkSolanaAddress } from '../codecs/solana-address.js';
import { addressField, addressSummary } from './shared.js';
import { applyTokenRule, tokenExponent } from './token-rule.js';
// USDC and USDT mints on Solana use 6 decimals; SPL tokens otherwise usually use 9, like SOL.
const KNOWN_TOKENS = { USDC: 6, USDT: 6 };
export const solana = buildRail({
    id: 'solana',
    catalog: {
        id: 'solana',
        label: 'Solana',
        fields: [addressField('Solana address', 44), stringField('spl_token', 'SPL token mint (for tokens)', { maxLength: 44 }), memoField()],
        currencies: { rule: 'SOL, or an SPL token symbol (optionally with its mint in spl_token)' },
    },
    read(reader, currency) {
        reader.only(['address', 'spl_token', 'memo']);
        reader.string('address', { required: true, check: checkSolanaAddress });
        readMemo(reader);
        applyTokenRule(reader, currency, {
            native: 'SOL',
            tokenField: 'spl_token',
            chain: 'Solana',
            readToken: (r) => r.string('spl_token', { required: false, check: checkSolanaAddress }),
        });
    },
    mask: (fields) => addressSummary('Solana', fields['address']),
    precision: (currency) => precisionOf(tokenExponent(currency, 'SOL', 9, KNOWN_TOKENS, 9)),
});
//# sourceMappingURL=solana.js.map