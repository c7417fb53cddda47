import { FetchRequest, JsonRpcProvider, keccak256 } from 'ethers';
import { FatalError, RejectedError, TransientError } from '../errors/index.ts';

export type BlockTag = 'latest' | 'pending';

export interface RpcLog {
  readonly address: string;
  readonly topics: readonly string[];
  readonly data: string;
  readonly logIndex: number;
}

export interface TxReceipt {
  readonly hash: string;
  readonly blockNumber: number;
  readonly blockHash: string;
  /** 1 = success, 0 = reverted. */
  readonly status: 0 | 1;
  readonly from: string;
  readonly to?: string;
  readonly gasUsed: bigint;
  readonly effectiveGasPrice: bigint;
  readonly logs: readonly RpcLog[];
}

export interface CallRequest {
  readonly from?: string;
  readonly to: string;
  readonly data?: string;
  readonly value?: bigint;
  readonly gas?: bigint;
}

/**
 * The chain port: the JSON-RPC calls the daemon makes. Every call has a timeout (TransientError
 * `rpc_timeout`); `sendRawTransaction` classifies the node's refusals.
 */
export interface ChainRpc {
  /** The chain id this client was configured for (not asked from the node). */
  readonly chainId: number;
  /** eth_chainId as the node answers it. */
  nodeChainId(): Promise<number>;
  blockNumber(): Promise<number>;
  /** Base fee of the latest block (0 on chains without EIP-1559). */
  baseFee(): Promise<bigint>;
  /** eth_maxPriorityFeePerGas. */
  maxPriorityFee(): Promise<bigint>;
  nonceAt(address: string, tag: BlockTag): Promise<number>;
  balance(address: string): Promise<bigint>;
  estimateGas(req: CallRequest): Promise<bigint>;
  call(req: CallRequest): Promise<string>;
  /**
   * Broadcasts a raw signed transaction and returns its hash. A node that already knows it counts
   * as success. Refusals: RejectedError with code `nonce_too_low`, `replacement_underpriced`,
   * `insufficient_funds`, `fee_too_low` or `rpc_rejected`. Timeouts and network errors:
   * TransientError with `maybeProcessed: true` (the transaction may be in a mempool).
   */
  sendRawTransaction(raw: string): Promise<string>;
  receipt(hash: string): Promise<TxReceipt | null>;
  /** Raw JSON-RPC escape hatch (e.g. `anvil_*` in tests). */
  request(method: string, params: readonly unknown[]): Promise<unknown>;
  destroy(): void;
}

export interface EthersRpcOptions {
  readonly url: string;
  readonly chainId: number;
  /** Per-call timeout; default 10 s. */
  readonly timeoutMs?: number;
  /** Timeout of eth_sendRawTransaction; default `timeoutMs`. */
  readonly sendTimeoutMs?: number;
}

function hexToNumber(v: unknown, what: string): number {
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]+$/.test(v)) {
    throw new TransientError('rpc_bad_response', `the node answered ${what} with a malformed quantity`);
  }
  const n = Number.parseInt(v, 16);
  if (!Number.isSafeInteger(n)) throw new TransientError('rpc_bad_response', `${what} out of range`);
  return n;
}

function hexToBigint(v: unknown, what: string): bigint {
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]*$/.test(v)) {
    throw new TransientError('rpc_bad_response', `the node answered ${what} with a malformed quantity`);
  }
  return v === '0x' ? 0n : BigInt(v);
}

const quantity = (v: bigint) => `0x${v.toString(16)}`;

function callObject(req: CallRequest): Record<string, string> {
  return {
    ...(req.from ? { from: req.from } : {}),
    to: req.to,
    ...(req.data ? { data: req.data } : {}),
    ...(req.value !== undefined ? { value: quantity(req.value) } : {}),
    ...(req.gas !== undefined ? { gas: quantity(req.gas) } : {}),
  };
}

/** The node's error message from an ethers error, or undefined for network failures. */
function rpcErrorMessage(e: unknown): string | undefined {
  const err = e as { error?: { message?: unknown }; info?: { error?: { message?: unknown } } } | null;
  const m = err?.error?.message ?? err?.info?.error?.message;
  return typeof m === 'string' ? m : undefined;
}

function safeText(s: string): string {
  return s.length > 300 ? `${s.slice(0, 300)}…` : s;
}

/** Classifies a node's refusal of eth_sendRawTransaction. */
export function classifySendError(message: string): RejectedError | 'known' {
  const m = message.toLowerCase();
  if (m.includes('already known') || m.includes('known transaction') || m.includes('already imported')) {
    return 'known';
  }
  const details = { reason: safeText(message) };
  if (
    m.includes('nonce too low') ||
    m.includes('nonce is too low') ||
    m.includes('nonce has already been used')
  ) {
    return new RejectedError('nonce_too_low', 'the node says the nonce is already used', { details });
  }
  if (m.includes('underpriced')) {
    return new RejectedError('replacement_underpriced', 'the node refused the fee (underpriced)', {
      details,
    });
  }
  if (m.includes('insufficient funds')) {
    return new RejectedError('insufficient_funds', 'the wallet cannot pay value plus gas', { details });
  }
  if (m.includes('base fee') || m.includes('fee cap') || m.includes('max fee per gas less')) {
    return new RejectedError('fee_too_low', 'the fee is below what the node accepts', { details });
  }
  return new RejectedError('rpc_rejected', `the node refused the transaction: ${safeText(message)}`, {
    details,
  });
}

/**
 * The ethers adapter of `ChainRpc`: a JsonRpcProvider with a fixed chain id (`staticNetwork`, no
 * network detection round trip), no batching delay, and a timeout on every call.
 */
export function createEthersRpc(options: EthersRpcOptions): ChainRpc {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const sendTimeoutMs = options.sendTimeoutMs ?? timeoutMs;
  const req = new FetchRequest(options.url);
  req.timeout = Math.max(timeoutMs, sendTimeoutMs) + 1_000;
  const provider = new JsonRpcProvider(req, options.chainId, {
    staticNetwork: true,
    batchMaxCount: 1,
    batchStallTime: 0,
    cacheTimeout: -1,
  });
  let destroyed = false;

  async function send(method: string, params: readonly unknown[], ms = timeoutMs): Promise<unknown> {
    if (destroyed) throw new TransientError('rpc_closed', 'the chain client was closed');
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new TransientError('rpc_timeout', `${method} got no answer within ${ms} ms`, {
              maybeProcessed: method === 'eth_sendRawTransaction',
              details: { method, timeoutMs: ms },
            }),
          ),
        ms,
      );
    });
    try {
      return await Promise.race([provider.send(method, params as unknown[]), timeout]);
    } catch (e) {
      if (e instanceof TransientError) throw e;
      const message = rpcErrorMessage(e);
      if (message !== undefined) {
        throw new RejectedError('rpc_error', `${method} failed: ${safeText(message)}`, {
          details: { method, reason: safeText(message) },
        });
      }
      throw new TransientError(
        'rpc_unavailable',
        `${method} failed: the node is unreachable or answered badly`,
        {
          maybeProcessed: method === 'eth_sendRawTransaction',
          details: { method, code: (e as { code?: unknown } | null)?.code ?? null },
        },
      );
    } finally {
      clearTimeout(timer);
    }
  }

  function toReceipt(r: Record<string, unknown>): TxReceipt {
    const logs = Array.isArray(r.logs) ? (r.logs as Array<Record<string, unknown>>) : [];
    return {
      hash: String(r.transactionHash),
      blockNumber: hexToNumber(r.blockNumber, 'blockNumber'),
      blockHash: String(r.blockHash),
      status: hexToNumber(r.status, 'status') === 1 ? 1 : 0,
      from: String(r.from),
      ...(typeof r.to === 'string' ? { to: r.to } : {}),
      gasUsed: hexToBigint(r.gasUsed, 'gasUsed'),
      effectiveGasPrice: hexToBigint(r.effectiveGasPrice ?? '0x0', 'effectiveGasPrice'),
      logs: logs.map((l) => ({
        address: String(l.address),
        topics: Array.isArray(l.topics) ? (l.topics as string[]) : [],
        data: String(l.data),
        logIndex: hexToNumber(l.logIndex ?? '0x0', 'logIndex'),
      })),
    };
  }

  return {
    chainId: options.chainId,
    async nodeChainId() {
      return hexToNumber(await send('eth_chainId', []), 'eth_chainId');
    },
    async blockNumber() {
      return hexToNumber(await send('eth_blockNumber', []), 'eth_blockNumber');
    },
    async baseFee() {
      const block = (await send('eth_getBlockByNumber', ['latest', false])) as Record<string, unknown> | null;
      const fee = block?.baseFeePerGas;
      return fee === undefined || fee === null ? 0n : hexToBigint(fee, 'baseFeePerGas');
    },
    async maxPriorityFee() {
      return hexToBigint(await send('eth_maxPriorityFeePerGas', []), 'eth_maxPriorityFeePerGas');
    },
    async nonceAt(address, tag) {
      return hexToNumber(await send('eth_getTransactionCount', [address, tag]), 'eth_getTransactionCount');
    },
    async balance(address) {
      return hexToBigint(await send('eth_getBalance', [address, 'latest']), 'eth_getBalance');
    },
    async estimateGas(r) {
      return hexToBigint(await send('eth_estimateGas', [callObject(r)]), 'eth_estimateGas');
    },
    async call(r) {
      return String(await send('eth_call', [callObject(r), 'latest']));
    },
    async sendRawTransaction(raw) {
      const hash = keccak256(raw);
      try {
        const got = await send('eth_sendRawTransaction', [raw], sendTimeoutMs);
        if (typeof got === 'string' && got.toLowerCase() !== hash) {
          throw new FatalError(
            'rpc_hash_mismatch',
            'the node returned another hash for our raw transaction',
            {
              details: { expected: hash, got },
            },
          );
        }
        return hash;
      } catch (e) {
        if (e instanceof RejectedError && e.code === 'rpc_error') {
          const c = classifySendError(String(e.details.reason ?? e.message));
          if (c === 'known') return hash;
          throw c;
        }
        throw e;
      }
    },
    async receipt(hash) {
      const r = (await send('eth_getTransactionReceipt', [hash])) as Record<string, unknown> | null;
      return r ? toReceipt(r) : null;
    },
    request(method, params) {
      return send(method, params);
    },
    destroy() {
      if (destroyed) return;
      destroyed = true;
      provider.destroy();
    },
  };
}

/**
 * Start-up check: the node must serve the configured chain. A mismatch is a FatalError (a key
 * pointed at the wrong chain must not trade); an unreachable node is a TransientError.
 */
export async function verifyChain(rpc: ChainRpc): Promise<void> {
  const actual = await rpc.nodeChainId();
  if (actual !== rpc.chainId) {
    throw new FatalError(
      'chain_mismatch',
      `the RPC node serves chain id ${actual}, but the daemon is configured for chain id ${rpc.chainId}; fix chain.rpcUrl or chain.name`,
      { details: { expected: rpc.chainId, actual } },
    );
  }
}
