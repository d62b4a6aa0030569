/**
 * The job runner's clock, nextRun and reschedule: schedules are computed in the runner's clock (a shifted one here),
 * nextRun reports the armed time, and reschedule re-reads a schedule whose inputs changed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { JobRunner } from '../../../kernel/jobs.js';
import type { Logger } from '../../../sdk/index.js';

const quiet: Logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
const DAY = 86_400_000;

describe('job schedules on an injected clock', () => {
  let runner: JobRunner;
  afterEach(async () => {
    await runner.drain();
  });

  it('arms at the time nextRunAt gives in the runner clock, reports it, and re-reads it on reschedule', async () => {
    const offset = Date.parse('2030-06-01T12:00:00.000Z') - Date.now();
    const clock = { now: () => Date.now() + offset };
    runner = new JobRunner(quiet, clock);
    let at: number | null = Date.parse('2030-06-02T00:00:00.000Z');
    const seen: number[] = [];
    runner.register('t', { name: 'daily', nextRunAt: (now) => (at === null ? null : at > now ? at : at + DAY), run: () => void seen.push(clock.now()) });
    expect(runner.nextRun('t.daily')).toBeNull();
    runner.start();
    expect(runner.nextRun('t.daily')).toBe(Date.parse('2030-06-02T00:00:00.000Z'));

    at = clock.now() + 50;
    runner.reschedule('t.daily');
    expect(runner.nextRun('t.daily')).toBe(at);
    while (seen.length === 0 || runner.nextRun('t.daily') === null) await new Promise((r) => setTimeout(r, 10));
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeGreaterThanOrEqual(at);
    // After the run it asked again: the same time has passed, so the next day.
    expect(runner.nextRun('t.daily')).toBe(at + DAY);

    at = null;
    runner.reschedule('t.daily');
    expect(runner.nextRun('t.daily')).toBeNull();
    runner.stopAll();
    expect(runner.nextRun('t.daily')).toBeNull();
  });
});
