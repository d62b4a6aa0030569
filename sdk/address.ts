/** Peer addresses as the node writes them (`http://host:port`, `https://host`, `<56 chars>.onion[:port]`). */
export { kindOfAddress, normalizeAddress } from '../kernel/peers/transport.js';
