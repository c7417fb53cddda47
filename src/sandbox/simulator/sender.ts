/**
 * One serialized transaction sender per wallet. Transactions of a wallet go out one at a time
 * through an ethers `NonceManager`; a transaction that would revert is caught by `estimateGas`
 * before it takes a nonce, and any failure of the send itself resets the manager (the next send
 * re-reads the pending nonce), so a failed send never leaves a nonce gap.
 */
import { NonceManager, type Signer, type TransactionReceipt, type TransactionRequest } from 'ethers';

export class TxSender {
  readonly address: string;
  readonly #signer: NonceManager;
  #queue: Promise<unknown> = Promise.resolve();
  #pending = 0;

  constructor(signer: Signer, address: string) {
    this.#signer = signer instanceof NonceManager ? signer : new NonceManager(signer);
    this.address = address;
  }

  /** Transactions queued or in flight. */
  get pending(): number {
    return this.#pending;
  }

  /**
   * Sends `tx` after the wallet's previous transactions and waits for a successful receipt;
   * rejects (without consuming a nonce) when the transaction would revert.
   */
  send(tx: TransactionRequest): Promise<TransactionReceipt> {
    this.#pending++;
    const run = this.#queue.then(() => this.#sendNow(tx));
    this.#queue = run.catch(() => undefined);
    return run.finally(() => {
      this.#pending--;
    });
  }

  async #sendNow(tx: TransactionRequest): Promise<TransactionReceipt> {
    const request: TransactionRequest = { ...tx, from: this.address };
    // Reverts surface here, before the nonce manager hands out a nonce.
    const gasLimit = await this.#signer.estimateGas(request);
    let sent: Awaited<ReturnType<NonceManager['sendTransaction']>>;
    try {
      sent = await this.#signer.sendTransaction({ ...request, gasLimit: (gasLimit * 12n) / 10n });
    } catch (e) {
      // The manager counted a nonce the chain may never have seen: re-read it next time.
      this.#signer.reset();
      throw e;
    }
    const receipt = await sent.wait();
    if (!receipt) throw new Error(`transaction ${sent.hash} has no receipt`);
    if (receipt.status !== 1) throw new Error(`transaction ${sent.hash} reverted`);
    return receipt;
  }
}

/**
 * One `TxSender` per wallet, shared by everything that sends for the traders (the simulator and
 * the cancel-window filler), so that their transactions queue behind each other and their nonces
 * never collide.
 */
export class SenderPool {
  readonly #senders = new Map<string, TxSender>();

  for(signer: Signer, address: string): TxSender {
    const key = address.toLowerCase();
    let s = this.#senders.get(key);
    if (!s) {
      s = new TxSender(signer, address);
      this.#senders.set(key, s);
    }
    return s;
  }
}
