/** Amounts that go into payment links and QR payloads. */
/**
 * A plain positive decimal with at most `decimals` places. Returns undefined when no amount was given and
 * null when one was given but cannot be represented, so callers emit no payload rather than a wrong one.
 */
export function linkAmount(amount, decimals) {
    if (amount === undefined)
        return undefined;
    if (typeof amount !== 'string')
        return null;
    const text = amount.trim();
    const pattern = decimals === 0 ? /^\d+$/ : new RegExp(`^\\d+(\\.\\d{1,${decimals}})?$`);
    if (!pattern.test(text) || Number(text) <= 0)
        return null;
    return text;
}
//# sourceMappingURL=amount.js.map