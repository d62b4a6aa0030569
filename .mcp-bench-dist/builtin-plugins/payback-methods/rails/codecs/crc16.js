/**
 * CRC-16 with the CCITT polynomial 0x1021, unreflected. Stellar and TON use the XMODEM variant (initial value
 * 0x0000); EMVCo QR payloads (SGQR, PayNow) use CCITT-FALSE (initial value 0xFFFF).
 */
export function crc16(bytes, initial) {
    let crc = initial;
    for (const byte of bytes) {
        crc ^= byte << 8;
        for (let bit = 0; bit < 8; bit++) {
            crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
        }
    }
    return crc;
}
export function crc16Xmodem(bytes) {
    return crc16(bytes, 0x0000);
}
export function crc16CcittFalse(bytes) {
    return crc16(bytes, 0xffff);
}
//# sourceMappingURL=crc16.js.map