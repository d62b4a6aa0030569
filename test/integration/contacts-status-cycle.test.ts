/**
 * The periodic status cycle of the contacts plugin (job `contacts.status-cycle` while contactStatusEnabled): each run
 * pings ONE accepted contact, in turn by id, wrapping around, and the runs are spread so that every accepted contact
 * is pinged once per 5 minutes (3 contacts: a run every 100 s). Real nodes on
 * loopback; kicking the job stands in for its 5-minute timer, and every effect is read back through the REST API.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { JobRunner } from '../../kernel/jobs.js';
import { STATUS_CYCLE_MS } from '../../builtin-plugins/contacts/ping.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { connect, ok, send, setSettings, settled, waitFor } from './ledger-support.js';

const JOB = 'contacts.status-cycle';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** What a status round may change on a contact, as GET /contacts/:address shows it. */
interface Status {
  last_ping_at: string | null;
  online_status: string;
  my_available_credit: string | null;
}

describe('contacts status cycle', () => {
  let A: TestNode;
  let B: TestNode;
  let C: TestNode;
  let D: TestNode;
  let nextRunAt: ((now: number) => number | null) | undefined;
  const names = ['Bob', 'Carol', 'Dave'] as const;
  type Name = (typeof names)[number];

  const status = async (name: Name): Promise<Status> => {
    const c = (await ok(A, 'GET', `/api/v1/contacts/${name}`)).contact;
    // The contact-level figure is the VWL line's (the only line): both must agree.
    expect(c.currencies.map((r: any) => [r.currency, r.my_available_credit])).toEqual([['VWL', c.my_available_credit]]);
    return { last_ping_at: c.last_ping_at, online_status: c.online_status, my_available_credit: c.my_available_credit };
  };
  const statuses = async (): Promise<Record<Name, Status>> =>
    Object.fromEntries(await Promise.all(names.map(async (n) => [n, await status(n)] as const))) as Record<Name, Status>;
  const jobState = async (): Promise<any> => (await ok(A, 'GET', '/api/v1/system/metrics')).jobs.states.find((s: any) => s.name === JOB);

  /**
   * One run of the cycle, as the 5-minute timer would start it. `kick` marks the job busy before it returns (the
   * run starts synchronously), so the run is over once the metrics listing shows the job idle again.
   */
  const runCycle = async (): Promise<void> => {
    A.node.jobs.kick(JOB);
    const s = await waitFor(jobState, (j) => j.busy === false, 'status cycle run', 15_000);
    expect(s).toMatchObject({ last_run_at: ISO, last_error: null });
  };

  /** Runs the cycle and checks that only `pinged` changed, into `expected`; the others are as they were. */
  const cyclePings = async (pinged: Name, expected: Omit<Status, 'last_ping_at'>): Promise<Record<Name, Status>> => {
    const before = await statuses();
    await runCycle();
    const after = await statuses();
    expect(after[pinged]).toEqual({ last_ping_at: expect.stringMatching(ISO), ...expected });
    expect(after[pinged].last_ping_at).not.toBe(before[pinged].last_ping_at);
    for (const other of names.filter((n) => n !== pinged)) expect(after[other]).toEqual(before[other]);
    return after;
  };

  beforeAll(async () => {
    // The job listing shows no period, so the registration itself is observed on A.
    const register = vi.spyOn(JobRunner.prototype, 'register');
    try {
      A = await startTestNode();
      nextRunAt = register.mock.calls.find(([owner, def]) => owner === 'contacts' && def.name === 'status-cycle')?.[1].nextRunAt;
    } finally {
      register.mockRestore();
    }
    [B, C, D] = await Promise.all([startTestNode(), startTestNode(), startTestNode()]);
    // In this order, so that the contacts' ids (the cycle's order) are Bob < Carol < Dave.
    await connect(A, B, { nameOfB: 'Bob', creditBtoA: '100.5' });
    await connect(A, C, { nameOfB: 'Carol', creditBtoA: '200.25' });
    await connect(A, D, { nameOfB: 'Dave', creditBtoA: '300' });
    // A owes Bob 10.25 and Carol 50: the peers' answers subtract it from the limits they extend.
    await settled(A, await send(A, 'Bob', '10.25'), B);
    await settled(A, await send(A, 'Carol', '50'), C);
    await waitFor(statuses, (s) => s.Bob.my_available_credit === '90.25' && s.Carol.my_available_credit === '150.25', 'credit after payments');
    // Each peer now extends more; the change is local to the peer (no notice), so A learns it only by pinging.
    await ok(B, 'PUT', '/api/v1/contacts/Alice', { currency: 'VWL', credit_limit: '500' });
    await ok(C, 'PUT', '/api/v1/contacts/Alice', { currency: 'VWL', credit_limit: '700.5' });
    await ok(D, 'PUT', '/api/v1/contacts/Alice', { currency: 'VWL', credit_limit: '1000.12345678' });
  });
  afterAll(async () => {
    await Promise.all([A, B, C, D].map((t) => t?.destroy()));
  });

  it('spreads one ping per accepted contact over each 300000 ms cycle and has not run yet', async () => {
    expect(STATUS_CYCLE_MS).toBe(300_000);
    expect(nextRunAt!(1_000_000)).toBe(1_000_000 + 100_000);
    expect(await jobState()).toEqual({ name: JOB, processor: 'contacts', running: true, busy: false, last_run_at: null, last_error: null });
    expect(await statuses()).toEqual({
      Bob: { last_ping_at: null, online_status: 'online', my_available_credit: '90.25' },
      Carol: { last_ping_at: null, online_status: 'online', my_available_credit: '150.25' },
      Dave: { last_ping_at: null, online_status: 'online', my_available_credit: '300' },
    });
  });

  it('pings one contact per run, in turn, and learns what each extends minus what A owes it', async () => {
    await cyclePings('Bob', { online_status: 'online', my_available_credit: '489.75' });
    await cyclePings('Carol', { online_status: 'online', my_available_credit: '650.5' });
    await cyclePings('Dave', { online_status: 'online', my_available_credit: '1000.12345678' });
  });

  it('wraps around; a stopped peer keeps its last status until its turn, then shows offline', async () => {
    await D.stop();
    await ok(B, 'PUT', '/api/v1/contacts/Alice', { currency: 'VWL', credit_limit: '600' });
    await cyclePings('Bob', { online_status: 'online', my_available_credit: '589.75' });
    // Not Dave's turn: A still shows it online although its node is down.
    const after = await cyclePings('Carol', { online_status: 'online', my_available_credit: '650.5' });
    expect(after.Dave.online_status).toBe('online');
    // Dave's turn: offline; the credit last learned stays.
    await cyclePings('Dave', { online_status: 'offline', my_available_credit: '1000.12345678' });
  });

  it('with contact_status_enabled=false a run pings nobody; enabled again, the turn goes on where it stopped', async () => {
    await setSettings(A, { contact_status_enabled: false });
    expect((await ok(A, 'GET', '/api/v1/system/settings')).settings.contact_status_enabled).toBe(false);
    await ok(B, 'PUT', '/api/v1/contacts/Alice', { currency: 'VWL', credit_limit: '700' });
    const before = await statuses();
    const lastRun = (await jobState()).last_run_at;
    await runCycle();
    expect((await jobState()).last_run_at).not.toBe(lastRun);
    expect(await statuses()).toEqual(before);
    await runCycle();
    expect(await statuses()).toEqual(before);

    await setSettings(A, { contact_status_enabled: true });
    await cyclePings('Bob', { online_status: 'online', my_available_credit: '689.75' });
  });
});
