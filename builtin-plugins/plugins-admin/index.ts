import { definePlugin } from '../../sdk/index.js';

export default definePlugin({
  setup() {
    // routes arrive with the plugin's implementation
  },
});
