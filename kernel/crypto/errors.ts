/**
 * The one error type the crypto layer throws for bad input or failed authentication.
 *
 * `reason` is a stable machine code so callers (peer inbound, API handlers) can map it to their own
 * error envelopes without parsing messages. Messages never carry key material, plaintext or words of a
 * seed phrase: they may end up in logs.
 */
export type CryptoErrorReason =
  /** Input is not shaped as expected (wrong length, not canonical base64url, unknown version). */
  | 'malformed'
  /** A key has the wrong size or type. */
  | 'bad-key'
  /** Authenticated decryption failed: tampered data, wrong key or wrong AAD (deliberately indistinguishable). */
  | 'auth-failed';

export class CryptoError extends Error {
  readonly reason: CryptoErrorReason;

  constructor(reason: CryptoErrorReason, message: string) {
    super(message);
    this.name = 'CryptoError';
    this.reason = reason;
  }
}
