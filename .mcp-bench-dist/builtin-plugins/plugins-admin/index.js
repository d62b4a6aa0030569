import { definePlugin } from '../../sdk/index.js';
import { registerPluginRoutes } from './routes.js';
/** Plugin administration over REST (all routes need `admin`), on top of the kernel's plugin host. */
export default definePlugin({
    setup(ctx) {
        registerPluginRoutes(ctx);
    },
});
//# sourceMappingURL=index.js.map