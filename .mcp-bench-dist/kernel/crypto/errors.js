export class CryptoError extends Error {
    reason;
    constructor(reason, message) {
        super(message);
        this.name = 'CryptoError';
        this.reason = reason;
    }
}
//# sourceMappingURL=errors.js.map