/**
 * The node of the export benchmark, in a process of its own so that its resident memory is the node's alone: starts
 * on the data directory it is given, tells the parent how to reach it (IPC), stops when told.
 */
import { AS_OPERATORS_RUN, startTestNode } from '../support/node.js';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: export-node <data dir>');
const t = await startTestNode({ dataDir, env: AS_OPERATORS_RUN });
const c = t.node.cliCredentials();
process.send!({ baseUrl: c.base_url, keyId: c.key_id, secret: c.secret });
process.on('message', (m) => {
  // CPU time used so far (µs): the parent takes the difference over an export, a figure other load on the machine
  // barely moves, unlike the wall-clock rate.
  if (m === 'cpu') {
    const u = process.cpuUsage();
    process.send!({ cpu: u.user + u.system });
  }
  if (m === 'stop') void t.stop().then(() => process.exit(0));
});
