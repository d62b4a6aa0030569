/**
 * `custom`: free-form instructions as labelled rows (e.g. "Bank" / "Revolut, tag @jdoe"), for anything the
 * other rails do not cover. Any currency; nothing can be checked beyond shape, so rows are kept short.
 */
import { BULLETS } from './common/mask.js';
import { assetPrecision } from './common/precision.js';
import { buildRail } from './common/rail.js';
import { checkFreeText, isPlainObject } from './common/text.js';
import { isAssetSymbol } from './common/currency.js';
export const MAX_ROWS = 50;
export const KEY_MAX = 64;
export const VALUE_MAX = 1024;
function readRow(reader, row, index) {
    const path = `rows[${index}]`;
    if (!isPlainObject(row)) {
        reader.fail(path, 'invalid_type', `${path} must be an object with key and value`);
        return undefined;
    }
    for (const name of Object.keys(row)) {
        if (name !== 'key' && name !== 'value')
            reader.fail(`${path}.${name}`, 'unknown_field', `${name} is not a row field`);
    }
    const key = row['key'];
    const value = row['value'];
    let ok = true;
    if (typeof key !== 'string' || key.trim() === '') {
        reader.fail(`${path}.key`, key === undefined || typeof key === 'string' ? 'required' : 'invalid_type', 'each row needs a key');
        ok = false;
    }
    else {
        const checked = checkFreeText(key.trim(), { maxLength: KEY_MAX });
        if (!checked.ok) {
            reader.fail(`${path}.key`, checked.code, `key: ${checked.message}`);
            ok = false;
        }
    }
    if (typeof value !== 'string') {
        reader.fail(`${path}.value`, value === undefined ? 'required' : 'invalid_type', 'each row needs a string value');
        ok = false;
    }
    else {
        // Values may span lines (postal addresses, multi-step instructions).
        const checked = checkFreeText(value.trim(), { maxLength: VALUE_MAX, multiline: true });
        if (!checked.ok) {
            reader.fail(`${path}.value`, checked.code, `value: ${checked.message}`);
            ok = false;
        }
    }
    return ok && typeof key === 'string' && typeof value === 'string' ? { key: key.trim(), value: value.trim() } : undefined;
}
export const custom = buildRail({
    id: 'custom',
    catalog: {
        id: 'custom',
        label: 'Other (free-form details)',
        fields: [{ name: 'rows', label: 'Details', type: 'rows', required: true, sensitive: true, max_length: MAX_ROWS }],
        currencies: { rule: 'any currency or asset code (3-10 letters or digits)' },
    },
    read(reader, currency) {
        reader.only(['rows']);
        if (!isAssetSymbol(currency, 3, 10))
            reader.currencyError('must be a currency or asset code of 3 to 10 letters or digits');
        const rows = reader.raw('rows');
        if (rows === undefined || rows === null)
            return reader.fail('rows', 'required', 'at least one row is required');
        if (!Array.isArray(rows))
            return reader.fail('rows', 'invalid_type', 'rows must be a list of {key, value}');
        if (rows.length === 0)
            return reader.fail('rows', 'required', 'at least one row is required');
        if (rows.length > MAX_ROWS)
            return reader.fail('rows', 'too_long', `at most ${MAX_ROWS} rows`);
        const clean = rows.map((row, index) => readRow(reader, row, index));
        if (clean.every((row) => row !== undefined))
            reader.keep('rows', clean);
    },
    mask(fields) {
        const rows = fields['rows'];
        const count = Array.isArray(rows) ? rows.length : 0;
        return count > 0 ? `Custom (${count} ${count === 1 ? 'row' : 'rows'})` : `Custom ${BULLETS}`;
    },
    precision: assetPrecision,
});
//# sourceMappingURL=custom.js.map