/**
 * PayNow payloads in the SGQR / EMVCo merchant-presented format: ID-length-value fields, PayNow's merchant
 * account template under ID 26, and a CRC-16/CCITT-FALSE over everything up to and including `6304`.
 * PayNow QR proxies are mobile numbers (type 0) and UENs (type 2); NRIC proxies are not encoded in QR codes.
 */
import { crc16CcittFalse } from './crc16.js';
/** EMV lengths count bytes; keeping the value printable ASCII keeps characters and bytes equal. */
function printable(value) {
    return value.replace(/[^\x20-\x7E]/g, '');
}
function field(id, value) {
    return `${id}${String(value.length).padStart(2, '0')}${value}`;
}
export function payNowPayload(input) {
    const account = field('00', 'SG.PAYNOW') +
        field('01', input.proxy.type === 'mobile' ? '0' : '2') +
        field('02', input.proxy.value) +
        field('03', input.amount === undefined ? '1' : '0');
    const body = field('00', '01') +
        field('01', input.amount === undefined ? '11' : '12') +
        field('26', account) +
        field('52', '0000') +
        field('53', '702') +
        (input.amount === undefined ? '' : field('54', input.amount)) +
        field('58', 'SG') +
        field('59', printable(input.name ?? '').slice(0, 25) || 'NA') +
        field('60', 'SINGAPORE') +
        (input.reference === undefined ? '' : field('62', field('01', printable(input.reference).slice(0, 25)))) +
        '6304';
    const crc = crc16CcittFalse(new TextEncoder().encode(body));
    return body + crc.toString(16).toUpperCase().padStart(4, '0');
}
//# sourceMappingURL=paynow-qr.js.map