import { definePlugin } from '../../sdk/index.js';
import { registerInfoRoute } from './routes.js';

export default definePlugin({
  setup(ctx) {
    registerInfoRoute(ctx);
  },
});
