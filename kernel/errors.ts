import { ApiError } from '../sdk/index.js';

export { ApiError };
