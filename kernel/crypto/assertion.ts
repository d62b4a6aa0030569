/**
 * Plugin assertions: a plugin has the node sign bytes of its own for a purpose it names (its domain), and any node
 * can check such a signature. The signed bytes are never the plugin's bytes alone but
 *
 *   "wn-plugin-assertion-v1" LF <plugin name> LF <domain> LF <bytes>
 *
 * so an assertion can pass neither as a peer envelope or ledger statement (their own prefixes, `wn-peer-v1`,
 * `wn-leg-v1`...) nor as another plugin's assertion, nor as the same plugin's under another domain. The plugin name
 * and the domain are printable ASCII without LF, so the first two LFs delimit them unambiguously.
 */
import { verify } from './sign.js';

export const ASSERTION_PREFIX = 'wn-plugin-assertion-v1';
const LABEL = /^[\x21-\x7e]{1,128}$/;

/** The exact bytes an assertion signs (docs/protocol.md, "Plugin assertions"). Throws on a malformed label. */
export function assertionBytes(plugin: string, domain: string, bytes: Uint8Array): Buffer {
  if (!LABEL.test(plugin)) throw new Error('an assertion names its plugin in 1 to 128 printable ASCII characters');
  if (!LABEL.test(domain)) throw new Error('an assertion domain is 1 to 128 printable ASCII characters without spaces');
  return Buffer.concat([Buffer.from(`${ASSERTION_PREFIX}\n${plugin}\n${domain}\n`, 'ascii'), bytes]);
}

/** False for anything that is not a valid assertion of `plugin` under `domain` (malformed labels included). */
export function verifyAssertion(publicRaw: Uint8Array, plugin: string, domain: string, bytes: Uint8Array, signature: Uint8Array): boolean {
  if (!LABEL.test(plugin) || !LABEL.test(domain)) return false;
  return verify(publicRaw, assertionBytes(plugin, domain, bytes), signature);
}
