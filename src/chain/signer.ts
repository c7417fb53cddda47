import { inspect } from 'node:util';
import { bytesToHex } from '@noble/hashes/utils.js';
import { getAddress, type TypedDataDomain, type TypedDataField, type Wallet } from 'ethers';
import { createLocalDigestSigner, type LocalDigestSigner } from './digest-signer.ts';
import { signEip1559 } from './tx-encode.ts';

/** An EIP-1559 transaction with every field the signer needs decided by the caller. */
export interface UnsignedTx {
  readonly chainId: number;
  readonly nonce: number;
  readonly to: string;
  readonly data?: string;
  readonly value?: bigint;
  readonly gasLimit: bigint;
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
}

export type TypedDataTypes = Record<string, TypedDataField[]>;

/**
 * The signer port: everything the daemon signs goes through one of these four methods. The
 * implementation holds the key; nothing here returns or exposes it.
 */
export interface Signer {
  /** Checksummed address. */
  readonly address: string;
  /** Signs an EIP-1559 transaction; returns the raw signed transaction (0x-hex). */
  signTransaction(tx: UnsignedTx): Promise<string>;
  /** EIP-712 typed-data signature (65 bytes, 0x-hex) over locally built typed data. */
  signTypedData(
    domain: TypedDataDomain,
    types: TypedDataTypes,
    value: Record<string, unknown>,
  ): Promise<string>;
  /**
   * Signs a 32-byte digest the caller computed itself (an EIP-712 digest of a locally built order:
   * the fast path for bulk offers). Returns the 65-byte signature r||s||v (0x-hex), synchronously.
   */
  signDigest(digest: string): string;
}

const wallets = new WeakMap<LocalSigner, Wallet>();
const digestSigners = new WeakMap<LocalSigner, LocalDigestSigner>();

/**
 * The ethers adapter of `Signer`. The ethers `Wallet` lives in a module-private WeakMap, so the
 * object itself holds no key material: `util.inspect`, `JSON.stringify`, `String()`, structured
 * logging and spreading it show only the address.
 */
export class LocalSigner implements Signer {
  readonly address: string;

  /** Use `loadSigner` / `signerFromPrivateKey`; the constructor takes an already-built wallet. */
  constructor(wallet: Wallet) {
    wallets.set(this, wallet);
    // Transactions and digests take the noble path (about 3x faster than ethers' Transaction and
    // SigningKey, byte-equal output); typed data stays with ethers' encoder.
    digestSigners.set(this, createLocalDigestSigner(wallet.signingKey.privateKey));
    this.address = getAddress(wallet.address);
    Object.freeze(this);
  }

  async signTransaction(tx: UnsignedTx): Promise<string> {
    return signEip1559(tx, this.#digestSigner());
  }

  signTypedData(
    domain: TypedDataDomain,
    types: TypedDataTypes,
    value: Record<string, unknown>,
  ): Promise<string> {
    return this.#wallet().signTypedData(domain, types, value);
  }

  signDigest(digest: string): string {
    if (!/^0x[0-9a-fA-F]{64}$/.test(digest)) throw new TypeError('digest must be 32 bytes of 0x-hex');
    return `0x${bytesToHex(this.#digestSigner().signDigest(digest))}`;
  }

  #digestSigner(): LocalDigestSigner {
    const d = digestSigners.get(this);
    if (!d) throw new Error('signer is not initialised');
    return d;
  }

  #wallet(): Wallet {
    const w = wallets.get(this);
    if (!w) throw new Error('signer is not initialised');
    return w;
  }

  toString(): string {
    return `LocalSigner(${this.address})`;
  }

  toJSON(): { address: string } {
    return { address: this.address };
  }

  [inspect.custom](): string {
    return this.toString();
  }
}
