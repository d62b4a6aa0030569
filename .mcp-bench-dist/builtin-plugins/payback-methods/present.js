/** The wire's exponent is the power of ten of the smallest amount (cents: -2); the rail contract counts decimals (2). */
export const wireExponent = (p) => (p.exponent === 0 ? 0 : -p.exponent);
export function methodView(row, masked) {
    return {
        method_id: row.method_id,
        type: row.type,
        label: row.label,
        currency: row.currency,
        priority: row.priority,
        enabled: row.enabled,
        share_policy: row.share_policy,
        settlement_min_unit: row.settlement_min_unit,
        settlement_min_unit_exponent: row.settlement_min_unit_exponent,
        masked_display: masked,
        created_at: row.created_at,
        updated_at: row.updated_at,
    };
}
export const revealedView = (row, masked, fields) => ({
    ...methodView(row, masked),
    fields,
});
export const receivedView = (row, masked, fields) => ({
    method_id: row.remote_id,
    type: row.type,
    label: row.label,
    currency: row.currency,
    priority: row.priority,
    settlement_min_unit: row.settlement_min_unit,
    settlement_min_unit_exponent: row.settlement_min_unit_exponent,
    masked_display: masked,
    fields,
    fetched_at: row.fetched_at,
});
//# sourceMappingURL=present.js.map