/** The retry schedule the node's own outbox uses, for plugins that retry peer deliveries themselves. */
export { backoffMs, waitsForPeerDisk } from '../kernel/peers/outbox.js';
