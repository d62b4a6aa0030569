import type { SettingDefinition } from '../../sdk/index.js';

/** Lets webhooks target loopback, private and link-local addresses (refused by default, as peers' addresses are). */
export const PRIVATE_TARGETS_SETTING = 'webhooksPrivateTargetsAllowed';
/** How full a line this node extends must get (percent of its limit) before `line.threshold` fires. */
export const LINE_THRESHOLD_SETTING = 'webhookLineThresholdPercent';

export const webhookSettings: readonly SettingDefinition[] = [
  {
    key: PRIVATE_TARGETS_SETTING,
    type: 'boolean',
    default: false,
    category: 'webhooks',
    env: 'NODE_WEBHOOKS_PRIVATE_TARGETS',
    description: 'Allow webhook URLs on loopback, private or link-local addresses (off: such targets are refused when added and when delivering)',
  },
  {
    key: LINE_THRESHOLD_SETTING,
    type: 'integer',
    default: 80,
    min: 1,
    max: 100,
    category: 'webhooks',
    description: 'line.threshold fires when a payment takes the credit a contact uses on a line of this node to this percent of its limit or more',
  },
];
