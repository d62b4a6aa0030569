/** Random (version 4, RFC 9562 variant) UUIDs, as used for Pix random keys; stored lower-case. */
import { fail, pass } from '../common/check.js';
export function checkUuidV4(input) {
    const uuid = input.toLowerCase();
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(uuid)) {
        return fail('invalid_format', 'is not a UUID (8-4-4-4-12 hex digits)');
    }
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(uuid)) {
        return fail('invalid_value', 'is not a version 4 (random) UUID');
    }
    return pass(uuid);
}
//# sourceMappingURL=uuid.js.map