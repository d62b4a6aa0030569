/** Builders for catalog field descriptions, plus the optional text fields several rails share. */
export function stringField(name, label, spec = {}) {
    const field = { name, label, type: 'string', required: spec.required ?? false, sensitive: spec.sensitive ?? false };
    if (spec.maxLength !== undefined)
        field.max_length = spec.maxLength;
    return field;
}
export function enumField(name, label, options, required = true) {
    return { name, label, type: 'enum', required, options, sensitive: false };
}
export function integerField(name, label, spec = {}) {
    return { name, label, type: 'integer', required: spec.required ?? false, sensitive: spec.sensitive ?? false };
}
/** Memos travel with the payment and can identify the payee at an exchange, so they are masked too. */
export const MEMO_MAX = 255;
export const NAME_MAX = 70;
export const memoField = (name = 'memo', label = 'Memo', maxLength = MEMO_MAX) => stringField(name, label, { sensitive: true, maxLength });
export const displayNameField = () => stringField('display_name', 'Display name', { maxLength: NAME_MAX });
export function readMemo(reader, name = 'memo', maxLength = MEMO_MAX) {
    reader.text(name, { required: false, maxLength });
}
export function readDisplayName(reader) {
    reader.text('display_name', { required: false, maxLength: NAME_MAX });
}
//# sourceMappingURL=fields.js.map