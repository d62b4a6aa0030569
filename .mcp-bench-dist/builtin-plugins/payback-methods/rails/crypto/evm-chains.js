/**
 * EVM chains the `evm` rail accepts and the assets each one carries: the gas asset, and the stablecoins
 * issued or widely bridged there. Token decimals differ per chain (Binance-Peg USDC/USDT use 18), which is
 * why the rail's precision for a token is the smallest decimals among these chains: that unit is payable
 * everywhere.
 */
export const EVM_CHAINS = {
    eth_mainnet: { label: 'Ethereum', native: ['ETH'], tokens: { USDC: 6, USDT: 6, DAI: 18 } },
    polygon: { label: 'Polygon', native: ['POL', 'MATIC'], tokens: { USDC: 6, USDT: 6, DAI: 18 } },
    bsc: { label: 'BNB Smart Chain', native: ['BNB'], tokens: { USDC: 18, USDT: 18, DAI: 18 } },
    avalanche_c: { label: 'Avalanche C-Chain', native: ['AVAX'], tokens: { USDC: 6, USDT: 6, DAI: 18 } },
    arbitrum_one: { label: 'Arbitrum One', native: ['ETH'], tokens: { USDC: 6, USDT: 6, DAI: 18 } },
    optimism: { label: 'OP Mainnet', native: ['ETH'], tokens: { USDC: 6, USDT: 6, DAI: 18 } },
    base: { label: 'Base', native: ['ETH'], tokens: { USDC: 6, DAI: 18 } },
};
export const EVM_CHAIN_IDS = Object.keys(EVM_CHAINS);
export function evmAsset(chain, currency) {
    const symbol = currency.toUpperCase();
    if (chain.native.includes(symbol))
        return { kind: 'native' };
    const decimals = chain.tokens[symbol];
    return decimals === undefined ? undefined : { kind: 'token', decimals };
}
//# sourceMappingURL=evm-chains.js.map