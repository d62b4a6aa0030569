/** `npm run sim -- [options]` (`--help` lists them): one run; prints the seed, the options, the figures and the trace digest; exits 1 on a violation. */
import { parseArgs } from 'node:util';
import { DEFAULTS, runSim, type SimOptions } from './run.js';
import { PROFILES } from './profiles.js';
import { LIAR_KINDS, type LiarKind } from './liars.js';

const HELP = `npm run sim -- [options]: one seeded run of real nodes on a simulated network, then the invariants.
  --seed S               the run's seed (default: random, printed)
  --profile NAME         a named option set: ${Object.keys(PROFILES).join(', ')} (options given here override it)
  --nodes N  --payments P  --rate R (payments per simulated second)
  --topology line|ring|triangle|erdos-renyi|scale-free  --degree D (mean, random graphs)
  --routed F             share of payments to a node that is not a contact
 network faults (probabilities per exchange):
  --drop P  --duplicate P  --delay P  --delay-ms MS
  --partitions K --partition-ms MS   K partitions that cut the nodes in two sides for MS each, then heal
  --crash P --down-ms MS             a node crashes at an exchange (as it sends; as it receives; after it commits,
                                     before it answers) and restarts from its data directory after up to MS
  --skew-ms MS                       each node's clock is off the simulated time by up to MS either way (above
                                     150000 two nodes may be more than the peer window of 300 s apart and
                                     refuse each other's messages: the set-up then fails)
 liars:
  --liars N              N nodes lie, taking these kinds in turn:
  --liar-kinds K,...     ${LIAR_KINDS.join(', ')} (default: all)
  --liar-delay-ms MS     how long a withholding relay or a late destination holds the preimage (default 600000)
 workloads besides payments (probabilities per payment step):
  --requests P  --refunds P  --terms P  --syncs P  --probes P  --splits P  --clearings P
 output:
  --verbose              progress on stderr
  --trace FILE           the event trace (a line per event) and FILE.state.json (the final state)
Prints the options, the figures, each violation and "seed S digest D violations V"; exits 1 on a violation.`;

function liarKinds(list: string): LiarKind[] {
  const kinds = list.split(',').map((k) => k.trim());
  const unknown = kinds.filter((k) => !(LIAR_KINDS as readonly string[]).includes(k));
  if (unknown.length) throw new Error(`unknown liar kind ${unknown.join(', ')}: ${LIAR_KINDS.join(', ')}`);
  return kinds as LiarKind[];
}

const { values } = parseArgs({
  options: {
    seed: { type: 'string' },
    nodes: { type: 'string' },
    payments: { type: 'string' },
    topology: { type: 'string' },
    degree: { type: 'string' },
    routed: { type: 'string' },
    rate: { type: 'string' },
    drop: { type: 'string' },
    duplicate: { type: 'string' },
    delay: { type: 'string' },
    'delay-ms': { type: 'string' },
    partitions: { type: 'string' },
    'partition-ms': { type: 'string' },
    crash: { type: 'string' },
    'down-ms': { type: 'string' },
    'skew-ms': { type: 'string' },
    liars: { type: 'string' },
    'liar-kinds': { type: 'string' },
    'liar-delay-ms': { type: 'string' },
    requests: { type: 'string' },
    refunds: { type: 'string' },
    terms: { type: 'string' },
    syncs: { type: 'string' },
    probes: { type: 'string' },
    splits: { type: 'string' },
    clearings: { type: 'string' },
    help: { type: 'boolean' },
    profile: { type: 'string' },
    'hop-budget': { type: 'string' },
    verbose: { type: 'boolean' },
    trace: { type: 'string' },
  },
});

if (values.help) {
  console.log(HELP);
  process.exit(0);
}
const base: SimOptions = values.profile ? { ...DEFAULTS, ...PROFILES[values.profile] } : DEFAULTS;
if (values.profile && !PROFILES[values.profile]) throw new Error(`no profile ${values.profile}: ${Object.keys(PROFILES).join(', ')}`);
const num = (v: string | undefined, d: number): number => (v === undefined ? d : Number(v));
const options: SimOptions = {
  ...base,
  seed: values.seed !== undefined ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31),
  nodes: num(values.nodes, base.nodes),
  payments: num(values.payments, base.payments),
  topology: (values.topology as SimOptions['topology']) ?? base.topology,
  degree: num(values.degree, base.degree),
  routed: num(values.routed, base.routed),
  rate: num(values.rate, base.rate),
  faults: {
    drop: num(values.drop, base.faults.drop),
    duplicate: num(values.duplicate, base.faults.duplicate),
    delay: num(values.delay, base.faults.delay),
    delayMs: num(values['delay-ms'], base.faults.delayMs),
    partitions: num(values.partitions, base.faults.partitions ?? 0),
    partitionMs: num(values['partition-ms'], base.faults.partitionMs ?? 10_000),
    crash: num(values.crash, base.faults.crash ?? 0),
    downMs: num(values['down-ms'], base.faults.downMs ?? 5000),
    skewMs: num(values['skew-ms'], base.faults.skewMs ?? 0),
  },
  liars: {
    count: num(values.liars, base.liars?.count ?? 0),
    kinds: values['liar-kinds'] ? liarKinds(values['liar-kinds']) : (base.liars?.kinds ?? [...LIAR_KINDS]),
    delayMs: num(values['liar-delay-ms'], base.liars?.delayMs ?? 600_000),
  },
  workloads: {
    requests: num(values.requests, base.workloads?.requests ?? 0),
    refunds: num(values.refunds, base.workloads?.refunds ?? 0),
    terms: num(values.terms, base.workloads?.terms ?? 0),
    syncs: num(values.syncs, base.workloads?.syncs ?? 0),
    probes: num(values.probes, base.workloads?.probes ?? 0),
    splits: num(values.splits, base.workloads?.splits ?? 0),
    clearings: num(values.clearings, base.workloads?.clearings ?? 0),
  },
  verbose: values.verbose ?? base.verbose,
  ...(values['hop-budget'] ? { hopBudget: Number(values['hop-budget']) } : {}),
  ...(values.trace ? { traceFile: values.trace } : {}),
};

const result = await runSim(options);
console.log(JSON.stringify({ options: result.options, stats: result.stats }, null, 2));
for (const v of result.violations) console.log(`VIOLATION ${v}`);
console.log(`seed ${options.seed} digest ${result.digest} violations ${result.violations.length}`);
process.exit(result.violations.length ? 1 : 0);
