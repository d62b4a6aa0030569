import { definePlugin } from '../../sdk/index.js';
import { registerKeyRoutes } from './routes.js';
/** API key management over REST (all routes need `admin`); the keys themselves live in the kernel's store. */
export default definePlugin({
    setup(ctx) {
        registerKeyRoutes(ctx);
    },
});
//# sourceMappingURL=index.js.map