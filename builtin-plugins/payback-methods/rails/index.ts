/**
 * The 29 core payback rails. The payback-methods plugin registers these first and refuses any plugin rail
 * whose id matches one of them.
 */

import type { PaybackRail } from '../../../sdk/payback-rail.js';
import { bankWire } from './bank-wire/index.js';
import { custom } from './custom.js';
import { algorand } from './crypto/algorand.js';
import { btc } from './crypto/btc.js';
import { cardano } from './crypto/cardano.js';
import { evm } from './crypto/evm.js';
import { lightning } from './crypto/lightning.js';
import { monero } from './crypto/monero.js';
import { solana } from './crypto/solana.js';
import { stellar } from './crypto/stellar.js';
import { ton } from './crypto/ton.js';
import { tron } from './crypto/tron.js';
import { utxoAlt } from './crypto/utxo-alt.js';
import { xrp } from './crypto/xrp.js';
import { alipay, cashapp, interac, paypal, revolut, venmo, wechatPay, wise, zelle } from './fintech/company-rails.js';
import { exchangeP2p } from './fintech/exchange-p2p.js';
import { mercadoPago } from './fintech/mercado-pago.js';
import { mobilePayment } from './fintech/mobile-payment.js';
import { paynow } from './fintech/paynow.js';
import { pix } from './fintech/pix.js';
import { upi } from './fintech/upi.js';

export const coreRails: readonly PaybackRail[] = Object.freeze([
  bankWire,
  custom,
  btc,
  evm,
  solana,
  tron,
  ton,
  cardano,
  lightning,
  xrp,
  stellar,
  monero,
  utxoAlt,
  algorand,
  pix,
  upi,
  mobilePayment,
  exchangeP2p,
  paynow,
  venmo,
  paypal,
  revolut,
  wise,
  cashapp,
  zelle,
  alipay,
  wechatPay,
  interac,
  mercadoPago,
]);
