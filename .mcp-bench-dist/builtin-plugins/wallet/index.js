import { definePlugin } from '../../sdk/index.js';
import { registerWalletRoutes } from './routes.js';
export default definePlugin({
    setup(ctx) {
        registerWalletRoutes(ctx);
    },
});
//# sourceMappingURL=index.js.map