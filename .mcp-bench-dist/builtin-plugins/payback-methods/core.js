/**
 * The operations behind the routes: create, read, update, delete, and the read side of sharing. Handlers pass
 * raw request bodies; every input rule is checked here and reported all at once (PaybackValidationError).
 */
import { randomBytes } from 'node:crypto';
import { ApiError } from '../../sdk/index.js';
import { FieldCipher } from './crypto.js';
import { methodView, revealedView, wireExponent } from './present.js';
import { PaybackStore } from './store.js';
import { DEFAULT_PRIORITY, Problems, checkCurrency, checkEnabled, checkFields, checkLabel, checkPriority, checkSharePolicy, checkType, normalizeCurrency, } from './validate.js';
export const METHOD_ID = /^pbm_[0-9a-f]{24}$/;
export const notFound = (id) => new ApiError('payback_method_not_found', 404, `Payback method not found: ${id}`);
export class PaybackCore {
    ctx;
    registry;
    store;
    cipher;
    constructor(ctx, registry) {
        this.ctx = ctx;
        this.registry = registry;
        this.store = new PaybackStore(ctx.db.handle);
        this.cipher = new FieldCipher(ctx.identity.storageKey('payback-methods'));
    }
    nowIso() {
        return new Date(this.ctx.clock.now()).toISOString();
    }
    row(id) {
        const row = METHOD_ID.test(id) ? this.store.get(id) : null;
        if (!row)
            throw notFound(id);
        return row;
    }
    /** Decrypted fields of a row, or null (logged) when its blob does not open. */
    fieldsOf(row) {
        const fields = this.cipher.decrypt(row.fields_enc, FieldCipher.ownAad(row.method_id));
        if (!fields)
            this.ctx.log.warn('payback method fields could not be decrypted', { method_id: row.method_id, code: 'payback_method_decrypt_failed' });
        return fields;
    }
    view(row) {
        return methodView(row, this.registry.mask(this.registry.get(row.type), this.fieldsOf(row)));
    }
    reveal(row) {
        const fields = this.fieldsOf(row);
        if (!fields)
            throw new ApiError('payback_fields_unreadable', 500, 'The fields of this payback method cannot be decrypted with this node\'s key');
        return revealedView(row, this.registry.mask(this.registry.get(row.type), fields), fields);
    }
    list(query) {
        const p = new Problems();
        let currency;
        if (query.currency !== undefined && query.currency !== '') {
            const code = typeof query.currency === 'string' ? normalizeCurrency(query.currency) : null;
            if (!code)
                p.add('currency', 'invalid_format', 'currency must be 3 to 10 letters or digits');
            else
                currency = code;
        }
        let all = false;
        if (query.all !== undefined && query.all !== '') {
            const raw = String(query.all).toLowerCase();
            if (raw === '1' || raw === 'true')
                all = true;
            else if (raw !== '0' && raw !== 'false')
                p.add('all', 'invalid_value', 'all must be 0 or 1');
        }
        p.throwIfAny();
        const methods = this.store.list({ includeDisabled: all, ...(currency !== undefined ? { currency } : {}) }).map((r) => this.view(r));
        return { methods, count: methods.length };
    }
    create(body) {
        const p = new Problems();
        const rail = checkType(body.type, this.registry, p);
        const label = checkLabel(body.label, p);
        const currency = checkCurrency(body.currency, p);
        const priority = checkPriority(body.priority, p);
        const sharePolicy = checkSharePolicy(body.share_policy, p);
        const fields = checkFields(body.fields, rail, currency, body.currency, this.registry, p);
        p.throwIfAny();
        const precision = this.registry.precision(rail, currency);
        const now = this.nowIso();
        const methodId = `pbm_${randomBytes(12).toString('hex')}`;
        this.store.insert({
            method_id: methodId,
            type: rail.id,
            label: label,
            currency: currency,
            fields_enc: this.cipher.encrypt(fields, FieldCipher.ownAad(methodId)),
            settlement_min_unit: precision.min_unit,
            settlement_min_unit_exponent: wireExponent(precision),
            priority: priority ?? DEFAULT_PRIORITY,
            enabled: true,
            share_policy: sharePolicy ?? 'auto',
            created_at: now,
            updated_at: now,
        });
        this.ctx.log.info('payback method created', { method_id: methodId, type: rail.id, currency: currency });
        return methodId;
    }
    /** Document 1: optional label, share_policy, priority, enabled, fields (the complete object); other keys ignored. */
    update(row, body) {
        const p = new Problems();
        const has = (key) => Object.prototype.hasOwnProperty.call(body, key);
        const changes = {};
        if (has('label'))
            changes.label = checkLabel(body.label, p);
        if (has('priority')) {
            if (body.priority === null)
                p.add('priority', 'invalid_type', 'priority must be an integer');
            else
                changes.priority = checkPriority(body.priority, p);
        }
        if (has('share_policy')) {
            if (body.share_policy === null)
                p.add('share_policy', 'invalid_type', 'share_policy must be auto or never');
            else
                changes.share_policy = checkSharePolicy(body.share_policy, p);
        }
        if (has('enabled')) {
            if (body.enabled === null)
                p.add('enabled', 'invalid_type', 'enabled must be true or false');
            else
                changes.enabled = checkEnabled(body.enabled, p);
        }
        if (has('fields')) {
            // Type and currency are fixed at creation; the fields are checked against them, as a whole.
            const rail = this.registry.get(row.type);
            if (!rail)
                p.add('type', 'unknown_type', `the rail "${row.type}" of this method is not registered on this node now`);
            const fields = checkFields(body.fields, rail, row.currency, row.currency, this.registry, p);
            if (fields && JSON.stringify(fields) !== JSON.stringify(this.fieldsOf(row))) {
                changes.fields_enc = this.cipher.encrypt(fields, FieldCipher.ownAad(row.method_id));
            }
        }
        p.throwIfAny();
        // Only what differs from the stored row counts as a change (updated_at moves only then).
        if (changes.label === row.label)
            delete changes.label;
        if (changes.priority === row.priority)
            delete changes.priority;
        if (changes.share_policy === row.share_policy)
            delete changes.share_policy;
        if (changes.enabled === row.enabled)
            delete changes.enabled;
        if (Object.values(changes).every((v) => v === undefined))
            return;
        changes.updated_at = this.nowIso();
        this.store.update(row.method_id, changes);
        this.ctx.log.info('payback method updated', { method_id: row.method_id, changed: Object.keys(changes).filter((k) => k !== 'updated_at' && k !== 'fields_enc').concat(changes.fields_enc ? ['fields'] : []) });
    }
    setSharePolicy(row, value) {
        const p = new Problems();
        if (value === undefined || value === null)
            p.add('share_policy', 'required', 'share_policy is required (auto or never)');
        const policy = checkSharePolicy(value, p);
        p.throwIfAny();
        if (policy !== row.share_policy)
            this.store.update(row.method_id, { share_policy: policy, updated_at: this.nowIso() });
        return policy;
    }
    delete(row) {
        this.store.delete(row.method_id);
        this.ctx.log.info('payback method deleted', { method_id: row.method_id });
    }
    /** The payer payload of a method (rails that build one), for an optional amount. */
    payload(type, currency, fields, amount) {
        const rail = this.registry.get(type);
        if (!rail?.settlementPayload) {
            throw new ApiError('payload_not_supported', 400, `The ${type} rail builds no payment link or QR payload`);
        }
        if (amount !== undefined && !/^(?:\d{1,20})(?:\.\d{1,18})?$/.test(amount)) {
            throw new ApiError('invalid_amount', 400, 'amount must be a plain positive decimal such as 12.50', { field: 'amount' });
        }
        const payload = fields ? this.registry.payload(rail, fields, currency, amount) : null;
        if (!payload) {
            throw amount !== undefined
                ? new ApiError('invalid_amount', 400, `The ${type} rail cannot encode the amount ${amount} in ${currency}`, { field: 'amount' })
                : new ApiError('payload_unavailable', 409, 'No payload can be built from the stored fields');
        }
        return payload;
    }
}
//# sourceMappingURL=core.js.map