/** Response shapes of Document 1's payback method resource, and of the methods contacts shared with us. */
import type { RailFields, SettlementPrecision } from '../../sdk/payback-rail.js';
import type { MethodRow, ReceivedRow } from './store.js';

/** The wire's exponent is the power of ten of the smallest amount (cents: -2); the rail contract counts decimals (2). */
export const wireExponent = (p: SettlementPrecision): number => (p.exponent === 0 ? 0 : -p.exponent);

export interface MethodView {
  method_id: string;
  type: string;
  label: string;
  currency: string;
  priority: number;
  enabled: boolean;
  share_policy: string;
  settlement_min_unit: number;
  settlement_min_unit_exponent: number;
  masked_display: string;
  created_at: string;
  updated_at: string;
}

export function methodView(row: MethodRow, masked: string): MethodView {
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

export const revealedView = (row: MethodRow, masked: string, fields: RailFields): MethodView & { fields: RailFields } => ({
  ...methodView(row, masked),
  fields,
});

export interface ReceivedView {
  /** The method's id on the contact's node. */
  method_id: string;
  type: string;
  label: string;
  currency: string;
  priority: number;
  settlement_min_unit: number;
  settlement_min_unit_exponent: number;
  masked_display: string;
  fields: RailFields | null;
  fetched_at: string;
}

export const receivedView = (row: ReceivedRow, masked: string, fields: RailFields | null): ReceivedView => ({
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
