/**
 * node-cli commands of the wallet plugin:
 *
 *   info [detail] [--show-auth]
 *   send <address|name> <amount> <currency> [description] [--best]     (rate: send bucket, 30 per 60 s)
 *   refund <txid> [amount]                                             (rate: 20 per minute)
 *   viewbalances [address|name]
 *   history [address|name] [limit]                                      (limit 0: all; default: maxOutput)
 *   overview [limit]                                                    (default 5, at most 20)
 */
import { CliError, cliDisplay, defineCliCommands, type CliContext } from '../../sdk/cli.js';
import type { ResponseData } from '../../sdk/index.js';
import { balanceTable, registerPaymentCommands, type BalanceRow } from './cli-payments.js';

/** The auth code leaves the machine's memory only this long when written to a file. */
export const AUTH_FILE_TTL_SECONDS = 300;

type AuthCodeState =
  | { status: 'redacted' }
  | { status: 'shown' }
  | { status: 'file'; file: string; expires_in_seconds: number };

/** A route the node does not serve yet (its plugin is missing or older): 404 with a routing code. */
const notServed = (err: unknown): boolean =>
  err instanceof CliError && err.details?.status === 404 && ['unknown_resource', 'unknown_action', 'invalid_path'].includes(err.code);

async function info(ctx: CliContext, detail: string | undefined, showAuth: boolean): Promise<void> {
  if (detail !== undefined && detail.toLowerCase() !== 'detail') {
    ctx.fail('INVALID_PARAMS', `unknown argument "${detail}": the only one is "detail" (node-cli info detail)`);
  }
  const wallet = await ctx.progress('Reading wallet info', () => ctx.api.get<ResponseData['GET /api/v1/wallet/info']>('/api/v1/wallet/info'));
  ctx.rememberNodeId(wallet.public_key_hash);

  let balances: BalanceRow[] | null = null;
  if (detail !== undefined) {
    try {
      balances = (await ctx.api.get<ResponseData['GET /api/v1/wallet/balance']>('/api/v1/wallet/balance')).balances;
    } catch (err) {
      if (!notServed(err)) throw err;
    }
  }

  let auth: AuthCodeState = { status: 'redacted' };
  let authCode: string | null = null;
  if (showAuth) {
    const identity = ctx.local.openIdentity();
    if (identity.pubkeyHash !== wallet.public_key_hash) {
      ctx.fail(
        'IDENTITY_MISMATCH',
        `the identity in ${ctx.local.dataDir} (${identity.pubkeyHash.slice(0, 12)}…) is not the node's (${wallet.public_key_hash.slice(0, 12)}…); pass the node's --data-dir`,
      );
    }
    if (!ctx.json && ctx.stdoutIsTty) {
      auth = { status: 'shown' };
      authCode = identity.authCode;
    } else {
      const file = ctx.local.writeSecretFile('auth-code', identity.authCode, AUTH_FILE_TTL_SECONDS);
      auth = { status: 'file', file, expires_in_seconds: AUTH_FILE_TTL_SECONDS };
    }
  }

  const data = {
    ...wallet,
    auth_code: auth,
    ...(detail !== undefined ? { balances, balances_available: balances !== null } : {}),
  };
  const show = await cliDisplay(ctx);
  ctx.out.success(data, () => {
    const o = ctx.out;
    const authLine =
      auth.status === 'shown'
        ? authCode
        : auth.status === 'file'
          ? `written to ${auth.file} (deleted in ${auth.expires_in_seconds} s)`
          : '******** (hidden; node-cli info --show-auth reveals it)';
    o.kv(
      [
        ['Public key hash', wallet.public_key_hash],
        ['Auth code', authLine],
      ],
      { title: 'Wallet' },
    );
    o.line();
    o.kv(
      [
        ['http', wallet.addresses.http],
        ['https', wallet.addresses.https],
        ['tor', wallet.addresses.tor],
      ],
      { title: 'Addresses' },
    );
    o.line();
    o.table(
      wallet.fee_earnings,
      [
        { key: 'currency', header: 'CURRENCY' },
        { key: 'total_amount', header: 'EARNED', align: 'right', format: show.amount },
      ],
      { title: 'Fee earnings (P2P relaying)', empty: 'none yet' },
    );
    o.line();
    o.table(
      wallet.available_credit,
      [
        { key: 'currency', header: 'CURRENCY' },
        { key: 'total_available_credit', header: 'AVAILABLE', align: 'right', format: show.amount },
      ],
      { title: 'Available credit (extended to you by your contacts)', empty: 'none' },
    );
    if (detail !== undefined) {
      o.line();
      if (balances === null) {
        o.line('Balances');
        o.line('  Balances are not available yet on this node.');
      } else {
        balanceTable(ctx, show, balances, 'Balances');
      }
    }
    if (auth.status === 'shown') o.warn('The auth code grants local login: do not share it.');
  });
}

export default defineCliCommands({
  plugin: 'wallet',
  register(program, ctx) {
    program
      .command('info')
      .summary('wallet identity, addresses, fee earnings and available credit')
      .description(
        'Shows the public key hash, the addresses (http, https, tor), the auth-code status (redacted), fee earnings ' +
          'and available credit per currency. "detail" adds the balances per contact and currency. --show-auth reveals ' +
          `the auth code: on a terminal it is printed; otherwise (or with --json) it is written to a memory-only file ` +
          `(mode 600) that is deleted after ${AUTH_FILE_TTL_SECONDS} s, and the path is printed. --show-auth reads the ` +
          "identity from the node's data directory, so it works only on the node's machine.",
      )
      .argument('[detail]', 'the word "detail": also show balances')
      .option('--show-auth', 'reveal the auth code (terminal) or write it to a short-lived memory file')
      .action((detail: string | undefined, opts: { showAuth?: boolean }) => info(ctx, detail, Boolean(opts.showAuth)));
    registerPaymentCommands(program, ctx);
  },
});
