import type { BuiltinPlugin, PluginManifest } from '../sdk/index.js';
import analytics from './analytics/index.js';
import analyticsManifest from './analytics/plugin.json' with { type: 'json' };
import apiKeys from './api-keys/index.js';
import apiKeysManifest from './api-keys/plugin.json' with { type: 'json' };
import archival from './archival/index.js';
import archivalManifest from './archival/plugin.json' with { type: 'json' };
import backups from './backups/index.js';
import backupsManifest from './backups/plugin.json' with { type: 'json' };
import chain from './chain/index.js';
import chainManifest from './chain/plugin.json' with { type: 'json' };
import contacts from './contacts/index.js';
import contactsManifest from './contacts/plugin.json' with { type: 'json' };
import dlq from './dlq/index.js';
import dlqManifest from './dlq/plugin.json' with { type: 'json' };
import exportsPlugin from './exports/index.js';
import exportsManifest from './exports/plugin.json' with { type: 'json' };
import gui from './gui/index.js';
import guiManifest from './gui/plugin.json' with { type: 'json' };
import ledger from './ledger/index.js';
import ledgerManifest from './ledger/plugin.json' with { type: 'json' };
import mcpPassthrough from './mcp-passthrough/index.js';
import mcpPassthroughManifest from './mcp-passthrough/plugin.json' with { type: 'json' };
import paybackMethods from './payback-methods/index.js';
import paybackMethodsManifest from './payback-methods/plugin.json' with { type: 'json' };
import paymentRequests from './payment-requests/index.js';
import paymentRequestsManifest from './payment-requests/plugin.json' with { type: 'json' };
import pluginsAdmin from './plugins-admin/index.js';
import pluginsAdminManifest from './plugins-admin/plugin.json' with { type: 'json' };
import pluginGateway from './plugin-gateway/index.js';
import pluginGatewayManifest from './plugin-gateway/plugin.json' with { type: 'json' };
import routing from './routing/index.js';
import routingManifest from './routing/plugin.json' with { type: 'json' };
import system from './system/index.js';
import systemManifest from './system/plugin.json' with { type: 'json' };
import wallet from './wallet/index.js';
import webhooks from './webhooks/index.js';
import webhooksManifest from './webhooks/plugin.json' with { type: 'json' };
import walletManifest from './wallet/plugin.json' with { type: 'json' };

const plugin = (manifest: PluginManifest, definition: BuiltinPlugin['definition']): BuiltinPlugin => ({ manifest, definition });

/** Every builtin plugin the node ships, in no particular order: the host orders them by their services. */
export const builtinPlugins: readonly BuiltinPlugin[] = [
  plugin(systemManifest, system),
  plugin(apiKeysManifest, apiKeys),
  plugin(pluginsAdminManifest, pluginsAdmin),
  plugin(walletManifest, wallet),
  plugin(contactsManifest, contacts),
  plugin(dlqManifest, dlq),
  plugin(ledgerManifest, ledger),
  plugin(paymentRequestsManifest, paymentRequests),
  plugin(routingManifest, routing),
  plugin(chainManifest, chain),
  plugin(paybackMethodsManifest, paybackMethods),
  plugin(pluginGatewayManifest, pluginGateway),
  plugin(analyticsManifest, analytics),
  plugin(exportsManifest, exportsPlugin),
  plugin(backupsManifest, backups),
  plugin(archivalManifest, archival),
  plugin(guiManifest, gui),
  plugin(mcpPassthroughManifest, mcpPassthrough),
  plugin(webhooksManifest, webhooks),
];
