import { ApiError } from '../sdk/index.js';
export { ApiError };
export const badRequest = (code, message, context) => new ApiError(code, 400, message, context);
export const notFound = (code, message) => new ApiError(code, 404, message);
export const unauthorized = (code, message) => new ApiError(code, 401, message);
/** Wraps an unexpected failure without leaking its message, which may hold paths or secrets. */
export const internalError = () => new ApiError('internal_error', 500, 'Internal server error');
//# sourceMappingURL=errors.js.map