/**
 * `npm run sim -- [--seed S] [--nodes N] [--payments P] [--topology line|ring|triangle|erdos-renyi|scale-free]
 *   [--degree D] [--routed 0.3] [--rate R] [--drop p] [--duplicate p] [--delay p] [--delay-ms ms] [--profile ci|scale] [--hop-budget H]
 *   [--verbose] [--trace FILE]`: one run; prints the seed, the options, the figures and the trace digest; exits 1 on a violation.
 */
import { parseArgs } from 'node:util';
import { DEFAULTS, runSim, type SimOptions } from './run.js';
import { PROFILES } from './profiles.js';

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
    profile: { type: 'string' },
    'hop-budget': { type: 'string' },
    verbose: { type: 'boolean' },
    trace: { type: 'string' },
  },
});

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
