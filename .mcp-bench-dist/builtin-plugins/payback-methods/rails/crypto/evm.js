/**
 * `evm`: an address on one of the supported EVM chains. The currency must be the chain's gas asset or one of
 * its listed tokens. A token may name its contract address (optional, as Document 1 lists it; checked when
 * given), while the gas asset must not have one.
 */
import { enumField, memoField, readMemo, stringField } from '../common/fields.js';
import { cryptoExponent, precisionOf, UNKNOWN_ASSET_EXPONENT } from '../common/precision.js';
import { buildRail } from '../common/rail.js';
import { asString } from '../common/text.js';
import { checkEvmAddress } from '../codecs/eip55.js';
import { EVM_CHAIN_IDS, EVM_CHAINS, evmAsset } from './evm-chains.js';
import { addressField, addressSummary } from './shared.js';
export const evm = buildRail({
    id: 'evm',
    catalog: {
        id: 'evm',
        label: 'Ethereum & EVM chains',
        fields: [
            enumField('chain', 'Chain', EVM_CHAIN_IDS),
            addressField('Address (0x...)', 42),
            stringField('token_contract', 'Token contract (for tokens)', { maxLength: 42 }),
            memoField(),
        ],
        currencies: { rule: "an asset on the chosen chain: its gas asset, or a listed token (optionally with its contract)" },
    },
    read(reader, currency) {
        reader.only(['chain', 'address', 'token_contract', 'memo']);
        const chainId = reader.choice('chain', EVM_CHAIN_IDS, true);
        reader.string('address', { required: true, check: checkEvmAddress });
        readMemo(reader);
        const chain = chainId === undefined ? undefined : EVM_CHAINS[chainId];
        if (!chain)
            return;
        const asset = evmAsset(chain, currency);
        if (!asset) {
            const symbols = [...chain.native, ...Object.keys(chain.tokens)];
            reader.currencyError(`${chain.label} settles in ${symbols.join(', ')}`);
            return;
        }
        if (asset.kind === 'native')
            reader.forbid('token_contract', `for ${chain.label}'s gas asset`);
        else
            reader.string('token_contract', { required: false, check: checkEvmAddress });
    },
    mask(fields) {
        const chain = EVM_CHAINS[asString(fields['chain']) ?? ''];
        return addressSummary(chain?.label ?? 'EVM', fields['address']);
    },
    precision: (currency) => precisionOf(cryptoExponent(currency) ?? UNKNOWN_ASSET_EXPONENT),
});
//# sourceMappingURL=evm.js.map