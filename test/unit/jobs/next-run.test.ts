import { afterEach, describe, expect, it } from 'vitest';
import { JobRunner } from '../../../kernel/jobs.js';
import type { Logger } from '../../../sdk/index.js';

const quiet: Logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('jobs with their own schedule (nextRunAt)', () => {
  let runner: JobRunner;
  afterEach(async () => {
    await runner.drain();
  });

  it('runs at the time nextRunAt gives and asks it again after each run', async () => {
    runner = new JobRunner(quiet);
    const asked: number[] = [];
    const runs: number[] = [];
    runner.register('t', {
      name: 'own',
      nextRunAt: (now) => {
        asked.push(now);
        return asked.length <= 2 ? now + 40 : null;
      },
      run: () => void runs.push(Date.now()),
    });
    const started = Date.now();
    runner.start();
    await sleep(200);
    expect(runs.length).toBe(2);
    expect(runs[0]! - started).toBeGreaterThanOrEqual(35);
    expect(asked.length).toBe(3);
  });

  it('leaves a job unscheduled while nextRunAt says null, yet runs it when kicked', async () => {
    runner = new JobRunner(quiet);
    let runs = 0;
    runner.register('t', { name: 'idle', nextRunAt: () => null, run: () => void runs++ });
    runner.start();
    await sleep(60);
    expect(runs).toBe(0);
    runner.kick('t.idle');
    await sleep(10);
    expect(runs).toBe(1);
  });
});
