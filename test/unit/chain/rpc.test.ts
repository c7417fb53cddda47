import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifySendError, createEthersRpc } from '../../../src/chain/index.ts';
import { RejectedError, TransientError } from '../../../src/errors/index.ts';

describe('classifySendError', () => {
  const table: Array<[string, string]> = [
    ['already known', 'known'],
    ['ALREADY_EXISTS: already known', 'known'],
    ['nonce too low: next nonce 5, tx nonce 4', 'nonce_too_low'],
    ['replacement transaction underpriced', 'replacement_underpriced'],
    ['transaction underpriced', 'replacement_underpriced'],
    ['insufficient funds for gas * price + value', 'insufficient_funds'],
    ['max fee per gas less than block base fee', 'fee_too_low'],
    ['execution reverted', 'rpc_rejected'],
  ];
  for (const [message, expected] of table) {
    it(`'${message}' -> ${expected}`, () => {
      const c = classifySendError(message);
      expect(c === 'known' ? 'known' : c.code).toBe(expected);
      if (c !== 'known') expect(c).toBeInstanceOf(RejectedError);
    });
  }
});

describe('createEthersRpc against a scripted JSON-RPC server', () => {
  let server: Server;
  let url: string;
  const answers = new Map<string, (params: unknown[]) => unknown>();

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c.toString();
      });
      req.on('end', () => {
        const msg = JSON.parse(body) as { id: number; method: string; params: unknown[] };
        const answer = answers.get(msg.method);
        if (answer === undefined) return; // hang
        const out = answer(msg.params);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify(
            out instanceof Error
              ? { jsonrpc: '2.0', id: msg.id, error: { code: -32000, message: out.message } }
              : { jsonrpc: '2.0', id: msg.id, result: out },
          ),
        );
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const a = server.address();
    url = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('parses quantities and receipts', async () => {
    answers.set('eth_blockNumber', () => '0x10');
    answers.set('eth_getTransactionCount', (p) => (p[1] === 'pending' ? '0x3' : '0x2'));
    answers.set('eth_getTransactionReceipt', () => ({
      transactionHash: '0xabc',
      blockNumber: '0x5',
      blockHash: '0xbh',
      status: '0x0',
      from: '0xf',
      to: null,
      gasUsed: '0x5208',
      effectiveGasPrice: '0x3b9aca00',
      logs: [{ address: '0xc', topics: ['0x1'], data: '0x', logIndex: '0x2' }],
    }));
    const rpc = createEthersRpc({ url, chainId: 1, timeoutMs: 1_000 });
    expect(await rpc.blockNumber()).toBe(16);
    expect(await rpc.nonceAt('0x0000000000000000000000000000000000000001', 'pending')).toBe(3);
    expect(await rpc.receipt('0xabc')).toMatchObject({
      status: 0,
      blockNumber: 5,
      gasUsed: 21_000n,
      effectiveGasPrice: 1_000_000_000n,
      logs: [{ logIndex: 2 }],
    });
    rpc.destroy();
  });

  it('a call without an answer is a TransientError after the timeout', async () => {
    answers.delete('eth_chainId');
    const rpc = createEthersRpc({ url, chainId: 1, timeoutMs: 200 });
    const err = await rpc.nodeChainId().catch((e: unknown) => e);
    rpc.destroy();
    expect(err).toBeInstanceOf(TransientError);
    expect((err as TransientError).code).toBe('rpc_timeout');
    expect((err as TransientError).maybeProcessed).toBe(false);
  });

  it('a node error on send is classified; a malformed answer is transient', async () => {
    answers.set('eth_sendRawTransaction', () => new Error('insufficient funds for gas * price + value'));
    answers.set('eth_blockNumber', () => 'not-hex');
    const rpc = createEthersRpc({ url, chainId: 1, timeoutMs: 1_000 });
    const e1 = await rpc.sendRawTransaction('0x02f0').catch((e: unknown) => e);
    expect((e1 as RejectedError).code).toBe('insufficient_funds');
    const e2 = await rpc.blockNumber().catch((e: unknown) => e);
    expect(e2).toBeInstanceOf(TransientError);
    rpc.destroy();
  });
});
