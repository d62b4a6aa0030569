import { mkdirSync, existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { KERNEL_EVENTS, type Clock, type KernelApi, type NodeAddresses, type NodeIdentityApi, type NodeInfo } from '../sdk/index.js';
import { ApiKeyStore } from './auth/key-store.js';
import { NonceStore } from './auth/nonces.js';
import { AuthFailureLimiter } from './auth/failure-limiter.js';
import { SlidingWindowLimiter } from './auth/rate-limiter.js';
import { RequestVerifier, SIGNATURE_WINDOW_SECONDS } from './auth/verifier.js';
import { nodeEnvironment, pluginKeyLabel, runBootRecovery } from './boot-recovery.js';
import { systemClock } from './clock.js';
import type { NodeConfig } from './config.js';
import { migrate } from './db/migrations.js';
import { lockDataDir, openDatabase, type DataDirLock, type Db } from './db/open.js';
import { snapshotMechanism, sweepScratch } from './db/snapshot.js';
import { CLI_CREDENTIALS_FILE, DATABASE_FILE, PLUGINS_STATE_FILE, SETTINGS_FILE } from './data-files.js';
import { injectStorageFaults } from './db/fault-seam.js';
import { StorageHealth } from './db/storage-health.js';
import { TxRunner } from './db/tx.js';
import { EventBus } from './events.js';
import { writeFileAtomic } from './fs-atomic.js';
import { HttpServerApp } from './http/app.js';
import { BodyReader } from './http/body.js';
import { clientIp } from './http/client-ip.js';
import { RouteTable } from './http/route-table.js';
import { ScrapeEndpoint } from './http/scrape.js';
import { loadOrCreateIdentity, type Identity } from './identity.js';
import { JobRunner } from './jobs.js';
import { LogSink } from './log.js';
import { kernelMetrics } from './kernel-metrics.js';
import { PeerTrafficDays } from './peers/traffic-days.js';
import { MetricsRegistry } from './metrics.js';
import { kernelMigrations } from './migrations.js';
import { createDualListener } from './net/listener.js';
import { createOutbound } from './net/outbound.js';
import { isLoopback, parseTrustedProxies, type TrustedProxies } from './net/proxies.js';
import { certificateHost, loadOrCreateCertificate } from './net/tls.js';
import { DEFAULT_MESSAGES_PER_KEY_PER_MINUTE } from './peers/inbound.js';
import { PeerLayer } from './peers/layer.js';
import type { MemoryNetwork } from './peers/transport-memory.js';
import { builtinContextFactory } from './plugins/context.js';
import { PluginHost, type BuiltinPlugin } from './plugins/host.js';
import { SandboxHost } from './plugins/sandbox/host.js';
import { ServiceRegistry } from './plugins/services.js';
import { kernelSettings } from './settings-catalog.js';
import { SettingsRegistry } from './settings.js';
import { nodeVersion } from './version.js';
import { guardProcess } from './process-guard.js';
import { storageRefusal } from './http/storage-refusal.js';

export interface NodeOptions {
  builtins: readonly BuiltinPlugin[];
  /** Echo log lines to stderr (the daemon does; tests do not). */
  echoLogs?: boolean;
  env?: Record<string, string | undefined>;
  /**
   * The data directory's lock when the caller took it already (the daemon does, before loading the plugins, so a
   * second start fails at once); startNode takes it otherwise. Either way stop() releases it.
   */
  lock?: DataDirLock;
  /** The time plugins (`ctx.clock`) and job schedules read; tests shift it to reach a scheduled time at once. */
  clock?: Clock;
  /**
   * An in-memory network the node joins besides its socket listener (simulations): it serves peers and REST
   * clients there at its http address (NODE_HOSTNAME names it), and reaches peers through it.
   */
  network?: MemoryNetwork;
  /**
   * The database's page cache, KiB (the driver's 16 MiB when unset): a process running many nodes (simulations)
   * keeps each one's small.
   */
  databaseCacheKiB?: number;
}

export interface CliCredentials {
  base_url: string;
  key_id: string;
  secret: string;
}

export interface RunningNode {
  readonly config: NodeConfig;
  readonly identity: Identity;
  readonly port: number;
  readonly baseUrl: string;
  addresses(): NodeAddresses;
  /** The admin credentials written to cli.json. */
  cliCredentials(): CliCredentials;
  /**
   * The node's jobs by id (`<owner>.<name>`): `kick` runs one now, as its timer would (tests stand in for
   * long periods with it); `states` is what GET /system/metrics lists.
   */
  readonly jobs: Pick<JobRunner, 'kick' | 'states'>;
  /** What the plugins asked to show in the startup banner (`ctx.banner`), in the order they started. */
  banner(): string[];
  /**
   * Keeps a background task that throws from ending the process (process-guard.ts); the daemon calls it, in-process
   * test nodes do not. Returns the uninstall.
   */
  guardProcess(): () => void;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

const CLI_KEY_NAME = 'node-cli';
const DRAIN_MS = 3000;

function loopbackFor(bind: string): string {
  if (bind === '0.0.0.0' || bind === '::' || bind === '') return '127.0.0.1';
  return bind.includes(':') ? `[${bind}]` : bind;
}

/**
 * Wires the kernel: identity, storage, settings, auth, HTTP, jobs and the plugin host, then listens.
 * Used by the daemon and by tests alike (several nodes in one process on port 0).
 * Throws DataDirInUseError, having changed nothing, when another node holds the data directory.
 */
export async function startNode(config: NodeConfig, options: NodeOptions): Promise<RunningNode> {
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  // Before anything in the directory is written: identity, migrations, cli.json.
  const lock = options.lock ?? lockDataDir(config.dataDir);
  let node: RunningNode;
  try {
    node = await startHeldNode(config, options);
  } catch (err) {
    lock.release();
    throw err;
  }
  return { ...node, stop: () => node.stop().finally(() => lock.release()) };
}

async function startHeldNode(config: NodeConfig, options: NodeOptions): Promise<RunningNode> {
  const env = options.env ?? process.env;
  const clock = options.clock ?? systemClock;
  sweepScratch(config.dataDir);
  await runBootRecovery({
    dataDir: config.dataDir,
    builtins: options.builtins,
    env,
    restoreMnemonic: config.restoreMnemonic,
    logs: new LogSink(join(config.dataDir, 'node.log'), options.echoLogs ?? false, config.logFormat),
  });
  const identity = loadOrCreateIdentity(config.dataDir, config.restoreMnemonic ? { restoreMnemonic: config.restoreMnemonic } : {});
  const logs = new LogSink(join(config.dataDir, 'node.log'), options.echoLogs ?? false, config.logFormat);
  const log = logs.logger('kernel');
  const db: Db = openDatabase(join(config.dataDir, DATABASE_FILE), { cacheKiB: options.databaseCacheKiB });
  const faultFile = env.NODE_TEST_STORAGE_FAULT_FILE;
  if (config.testMode && faultFile) injectStorageFaults(db, faultFile);
  migrate(db, 'kernel', kernelMigrations);
  const probeWrite = db.prepare(`INSERT INTO kernel_state (key, value) VALUES ('storage_probe', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`);
  const storage = new StorageHealth(() => void probeWrite.run(new Date().toISOString()), logs.logger('storage'));
  const tx = new TxRunner(db, storage);

  const settings = new SettingsRegistry(join(config.dataDir, SETTINGS_FILE), logs.logger('settings'), options.env ?? process.env);
  settings.declare(kernelSettings);
  const applyLogSettings = (): void => {
    logs.level = settings.get('logLevel');
    logs.maxEntries = settings.get<number>('logMaxEntries');
  };
  applyLogSettings();
  settings.onChange('logLevel', applyLogSettings);
  settings.onChange('logMaxEntries', applyLogSettings);

  let proxies: TrustedProxies | null = null;
  const refreshProxies = (): void => {
    const parsed = parseTrustedProxies(settings.get<string[]>('trustedProxies'));
    proxies = config.trustedProxies ?? (typeof parsed === 'string' ? null : parsed);
  };
  refreshProxies();
  settings.onChange('trustedProxies', refreshProxies);
  let scrapers: TrustedProxies | null = null;
  const refreshScrapers = (): void => {
    const parsed = parseTrustedProxies(settings.get<string[]>('metricsAllowedAddresses'));
    scrapers = typeof parsed === 'string' ? null : parsed;
  };
  refreshScrapers();
  settings.onChange('metricsAllowedAddresses', refreshScrapers);
  const metrics = new MetricsRegistry(logs.logger('metrics'));
  const measured = kernelMetrics(metrics, config.dataDir);
  const traffic = new PeerTrafficDays(db, () => clock.now());

  const keys = new ApiKeyStore(db, identity.storageKey('api-key-secrets'), `wn${identity.pubkeyHash.slice(0, 8)}`);
  const nonces = new NonceStore(db, SIGNATURE_WINDOW_SECONDS, { storage, log: logs.logger('auth') });
  const verifier = new RequestVerifier(keys, nonces, new SlidingWindowLimiter(), () => settings.get<boolean>('rateLimitEnabled'));
  const events = new EventBus(logs.logger('events'));
  storage.onRecovered(() => events.publish(KERNEL_EVENTS.storageRecovered, {}));
  const jobs = new JobRunner(logs.logger('jobs'), clock, measured.jobRan);
  jobs.register('kernel', { name: 'nonce-prune', processor: 'cleanup', everyMs: 60_000, run: () => void nonces.prune(Date.now() / 1000) });
  jobs.register('kernel', { name: 'key-last-used', everyMs: 5_000, run: () => keys.flushLastUsed() });
  // Third-party plugins (isolated-vm); made before listening, so a bad NODE_PLUGINS_* value stops the start at once.
  const sandbox = new SandboxHost({
    db,
    dataDir: config.dataDir,
    env,
    logs,
    clock,
    registerScopes: (scopes) => keys.registerScopes(scopes),
    knownScopes: () => keys.knownScopes(),
  });

  let host: PluginHost | null = null;
  // One reader for REST and peer bodies alike: the in-flight budget of a client address covers both.
  const bodies = new BodyReader();
  const failureLimits = () => ({
    maxAttempts: settings.get<number>('rateLimitMaxAttempts'),
    windowSeconds: settings.get<number>('rateLimitWindowSeconds'),
    blockSeconds: settings.get<number>('rateLimitBlockSeconds'),
  });
  const app = new HttpServerApp({
    verifier,
    bodies,
    authFailures: new AuthFailureLimiter(failureLimits, logs.logger('auth')),
    publicAuthFailures: new AuthFailureLimiter(failureLimits, logs.logger('public-auth')),
    log: logs.logger('http'),
    apiEnabled: () => settings.get<boolean>('apiEnabled'),
    corsOrigins: () => settings.get<string>('apiCorsAllowedOrigins'),
    trustedProxies: () => proxies,
    publicRoutesOpen: (plugin) => host?.publicRoutesOpen(plugin) ?? false,
    version: nodeVersion(),
    checkResponses: config.testMode,
    health: () => storage.report(),
    knownFailure: (err) => storageRefusal(storage, err),
    answered: measured.answered,
  });

  // One port serves HTTP and HTTPS (self-signed certificate, remade when the hostname setting names another host).
  const tlsHost = (): string => certificateHost(settings.get<string>('hostname') || config.hostname);
  // Peer traffic is answered before the REST pipeline; the layer exists once the listener's addresses are known.
  let peerEndpoint: PeerLayer | null = null;
  const rest = app.callback();
  const scrape = new ScrapeEndpoint({
    token: config.metricsToken,
    allowed: () => scrapers,
    clientAddress: (req) => clientIp(req.socket.remoteAddress, req.headers, proxies),
    exposition: () => metrics.exposition(),
  });
  const serve = (req: IncomingMessage, res: ServerResponse): void => {
    if (!peerEndpoint?.serve(req, res) && !scrape.serve(req, res)) void rest(req, res);
  };
  const listener = createDualListener(
    serve,
    await loadOrCreateCertificate(config.dataDir, tlsHost()),
    {
      upgrade: (req, socket, head) => peerEndpoint?.upgrade(req, socket, head) ?? null,
      // Many clients share a proxy's address (everyone over Tor arrives from the local daemon): a budget of its own.
      connectionsPer: (address) =>
        settings.get<number>(proxies?.includes(address) || (config.torEnabled && isLoopback(address)) ? 'connectionsPerProxyAddress' : 'connectionsPerAddress'),
    },
  );
  settings.onChange('hostname', () => {
    loadOrCreateCertificate(config.dataDir, tlsHost()).then(
      (c) => listener.setCertificate(c.cert, c.key),
      (err: unknown) => log.error('TLS certificate not renewed', { error: String(err) }),
    );
  });
  const server = listener.server;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.bind, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const baseUrl = `http://${loopbackFor(config.bind)}:${port}`;

  const addresses = (): NodeAddresses => {
    const hostname = settings.get<string>('hostname') || config.hostname || '';
    return {
      http: hostname ? hostname.replace(/^https:/, 'http:') : baseUrl,
      https: hostname ? hostname.replace(/^http:/, 'https:') : baseUrl.replace(/^http:/, 'https:'),
      tor: config.torEnabled ? identity.onionAddress : null,
    };
  };

  const stateGet = db.prepare('SELECT value FROM kernel_state WHERE key = ?');
  const stateSet = db.prepare('INSERT INTO kernel_state (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value');
  // Read on every peer message: kept in memory, written through on change.
  let retired = (stateGet.get('retired') as { value: string } | undefined)?.value === 'true';
  const isRetired = (): boolean => retired;

  const peers = new PeerLayer({
    db,
    tx,
    identity,
    addresses,
    version: nodeVersion(),
    retired: isRetired,
    bodies,
    clientAddress: (req) => clientIp(req.socket.remoteAddress, req.headers, proxies),
    // Declared by the system plugin (Document 2 lists it with the other settings); the kernel enforces it.
    perKeyPerMinute: () =>
      settings.has('p2pRateLimitPerMinute') ? settings.get<number>('p2pRateLimitPerMinute') : DEFAULT_MESSAGES_PER_KEY_PER_MINUTE,
    log: logs.logger('peers'),
    settings: (key) => settings.get(key),
    torSocks: config.torSocks,
    now: () => clock.now(),
    tlsFingerprint: () => listener.fingerprint(),
    ...(options.network ? { httpTransport: options.network.transport(() => addresses().http ?? baseUrl) } : {}),
    counted: (direction, type, result) => {
      measured.peerMessage(direction, type, result);
      traffic.counted(direction, type, result);
    },
  });
  peers.dlq.onChange(() => events.publish(KERNEL_EVENTS.dlqChanged, { pending: peers.dlq.pendingCount() }));
  peerEndpoint = peers;
  jobs.register('kernel', {
    name: 'peer-retention',
    processor: 'cleanup',
    everyMs: 3_600_000,
    run: () => {
      const now = clock.now();
      const deliveryDays = settings.get<number>('cleanupDeliveryRetentionDays');
      peers.inbound.prune(now, deliveryDays * 86_400_000);
      peers.dlq.cleanup(now, settings.get<number>('cleanupDlqRetentionDays'), deliveryDays);
      traffic.prune(settings.get<number>('cleanupMetricsRetentionDays'));
    },
  });
  jobs.register('kernel', { name: 'peer-traffic', everyMs: 60_000, run: () => traffic.flush() });
  // A shorter retention applies at once, not at the next hourly run.
  for (const key of ['cleanupDeliveryRetentionDays', 'cleanupDlqRetentionDays', 'cleanupMetricsRetentionDays']) {
    settings.onChange(key, () => jobs.kick('kernel.peer-retention'));
  }

  const node: NodeInfo = {
    version: nodeVersion(),
    pubkeyHash: identity.pubkeyHash,
    get addresses() {
      return addresses();
    },
    listener: { host: config.bind, port },
    dataDir: config.dataDir,
    startedAt: Date.now(),
    environment: config.environment,
    testMode: config.testMode,
    torSocks: config.torSocks,
  };

  let services = new ServiceRegistry();
  // Plugin name → its banner lines; a plugin's teardown removes its own.
  const banner = new Map<string, readonly string[]>();
  const reload = async (): Promise<void> => {
    await host!.unload('restart');
    services = new ServiceRegistry();
    const table = new RouteTable();
    await host!.load(table);
    app.setRoutes(table);
  };

  const kernel: KernelApi = {
    node,
    snapshots: snapshotMechanism(db, config.dataDir),
    env: nodeEnvironment(env),
    outbound: createOutbound(() => config.torSocks),
    dlq: peers.dlq,
    apiKeys: keys,
    get plugins() {
      return host!;
    },
    jobs,
    settings,
    databaseHealthy: () => {
      try {
        return (db.prepare('SELECT 1 AS ok').get() as { ok: number }).ok === 1;
      } catch {
        return false;
      }
    },
    recentLogs: (limit) => logs.recent(limit),
    httpMetrics: () => ({ requests_total: app.metrics.requests, ...app.metrics.by_status }),
    peerTrafficDays: () => traffic.days(),
    restart: reload,
    setRetired: (value) => {
      stateSet.run('retired', String(value));
      retired = value;
      if (value) {
        jobs.stopAll();
        peers.outbox.stop();
      } else {
        jobs.startAll();
        peers.outbox.start();
      }
    },
    isRetired,
    setTransportsDown: (down) => {
      peers.setDown(down);
      log.warn(down ? 'peer transports taken down' : 'peer transports up again');
    },
    transportsDown: () => peers.client.down,
  };

  // Plugins get a narrow view: no way to reach the mnemonic or the raw key material, even with a cast.
  const identityApi: NodeIdentityApi = Object.freeze({
    pubkeyHash: identity.pubkeyHash,
    publicKey: identity.publicKey,
    sealingPublicKey: identity.sealingPublicKey,
    authCode: identity.authCode,
    sign: (data: Uint8Array) => identity.sign(data),
    verify: (pub: Uint8Array, data: Uint8Array, sig: Uint8Array) => identity.verify(pub, data, sig),
    storageKey: (label: string) => identity.storageKey(pluginKeyLabel(label)),
  });
  host = new PluginHost(
    options.builtins,
    join(config.dataDir, PLUGINS_STATE_FILE),
    config.publicPluginRoutes,
    builtinContextFactory({
      db,
      tx,
      events,
      jobs,
      settings,
      logs,
      metrics,
      clock,
      identity: identityApi,
      kernel,
      peers,
      services: () => services,
      sandbox,
      banner,
      registerScopes: (scopes) => keys.registerScopes(scopes),
    }),
    log,
    sandbox,
  );
  const table = new RouteTable();
  try {
    await host.load(table);
  } catch (err) {
    await new Promise((r) => server.close(r));
    db.close();
    throw err;
  }
  app.setRoutes(table);

  const cli = ensureCliCredentials(config.dataDir, keys, baseUrl);
  const detachNetwork = options.network?.attach(addresses().http ?? baseUrl, serve);
  if (!isRetired()) {
    jobs.start();
    peers.outbox.start();
  }
  log.info('node started', { port, pubkey_hash: identity.pubkeyHash });

  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      detachNetwork?.();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      listener.closeIdle();
      const forced = setTimeout(() => listener.closeAll(), DRAIN_MS);
      await closed;
      clearTimeout(forced);
      peers.outbox.stop();
      // Closing the transports fails the requests still in flight; their attempts record that before the database closes.
      peers.transports.close();
      peers.routes.close();
      await peers.outbox.drain();
      await jobs.drain();
      await host!.unload('shutdown');
      keys.flushLastUsed();
      nonces.flush();
      peers.inbound.flush();
      try {
        traffic.flush();
      } catch (err) {
        log.warn('peer traffic counts not written', { error: err instanceof Error ? err.message : String(err) });
      }
      storage.stop();
      db.close();
      log.info('node stopped');
    })();
    return stopping;
  };

  return {
    config,
    identity,
    port,
    baseUrl,
    addresses,
    cliCredentials: () => cli,
    banner: () => [...banner.values()].flat(),
    guardProcess: () => guardProcess(storage, logs.logger('process')),
    jobs,
    restart: reload,
    stop,
  };
}

/**
 * node-cli on this machine authenticates with an admin key kept in `cli.json` (mode 600). It is created on
 * first start and re-created if the file or the key was removed; the base URL follows the current listener.
 */
function ensureCliCredentials(dataDir: string, keys: ApiKeyStore, baseUrl: string): CliCredentials {
  const file = join(dataDir, CLI_CREDENTIALS_FILE);
  let current: CliCredentials | null = null;
  if (existsSync(file)) {
    try {
      current = JSON.parse(readFileSync(file, 'utf8')) as CliCredentials;
    } catch {
      current = null;
    }
  }
  if (!current || !keys.lookup(current.key_id)) {
    const { record, secret } = keys.create({ name: CLI_KEY_NAME, permissions: ['admin'], rate_limit_per_minute: 1000 });
    current = { base_url: baseUrl, key_id: record.key_id, secret };
  } else if (current.base_url === baseUrl) {
    return current;
  }
  current = { ...current, base_url: baseUrl };
  writeFileAtomic(file, JSON.stringify(current, null, 2) + '\n', 0o600);
  return current;
}
