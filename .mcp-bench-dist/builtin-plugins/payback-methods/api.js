export class RailRegistrationError extends Error {
    code;
    constructor(code, message) {
        super(message);
        this.code = code;
        this.name = 'RailRegistrationError';
    }
}
//# sourceMappingURL=api.js.map