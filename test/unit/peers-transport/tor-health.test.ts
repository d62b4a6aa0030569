import { describe, expect, it } from 'vitest';
import { TorHealth } from '../../../kernel/peers/tor-health.js';
import { TransportError } from '../../../kernel/peers/transport.js';

function setup(maxFailures = 3, cooldownSeconds = 300) {
  let now = 1_000_000;
  const settings = { maxFailures, cooldownSeconds };
  const health = new TorHealth(() => settings, () => now);
  return { health, settings, advance: (ms: number) => (now += ms) };
}

function cooldownOf(fn: () => void): string | null {
  try {
    fn();
    return null;
  } catch (err) {
    expect(err).toBeInstanceOf(TransportError);
    return (err as TransportError).code;
  }
}

describe('TorHealth', () => {
  it('cools an onion down after maxFailures consecutive failures', () => {
    const { health } = setup(3, 300);
    health.recordFailure('a.onion');
    health.recordFailure('a.onion');
    expect(cooldownOf(() => health.check('a.onion'))).toBeNull();
    health.recordFailure('a.onion');
    expect(cooldownOf(() => health.check('a.onion'))).toBe('tor_cooldown');
    expect(cooldownOf(() => health.check('b.onion'))).toBeNull();
    expect(health.cooling()).toEqual(['a.onion']);
  });

  it('a success resets the count', () => {
    const { health } = setup(3, 300);
    health.recordFailure('a.onion');
    health.recordFailure('a.onion');
    health.recordSuccess('a.onion');
    health.recordFailure('a.onion');
    health.recordFailure('a.onion');
    expect(cooldownOf(() => health.check('a.onion'))).toBeNull();
    expect(health.state('a.onion').failures).toBe(2);
  });

  it('lets one probe through after the cooldown; a failed probe cools down again at once', () => {
    const { health, advance } = setup(2, 60);
    health.recordFailure('a.onion');
    health.recordFailure('a.onion');
    advance(59_999);
    expect(cooldownOf(() => health.check('a.onion'))).toBe('tor_cooldown');
    advance(1);
    expect(cooldownOf(() => health.check('a.onion'))).toBeNull();
    health.recordFailure('a.onion');
    expect(cooldownOf(() => health.check('a.onion'))).toBe('tor_cooldown');
    advance(60_000);
    health.recordSuccess('a.onion');
    expect(health.state('a.onion')).toEqual({ failures: 0, coolingUntil: null });
  });

  it('reads the settings on every failure', () => {
    const { health, settings } = setup(3, 300);
    settings.maxFailures = 1;
    health.recordFailure('a.onion');
    expect(cooldownOf(() => health.check('a.onion'))).toBe('tor_cooldown');
  });
});
