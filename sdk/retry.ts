/** The retry schedule the node's own outbox uses, for plugins that retry peer deliveries themselves. */
export { backoffMs, PEER_DISK_WAIT_MS, waitsForPeerDisk } from '../kernel/peers/outbox.js';
