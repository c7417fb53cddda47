import { createServer, type Server } from 'node:http';
import { HDNodeWallet, Mnemonic } from 'ethers';
import { DEFAULT_MNEMONIC } from '../../../src/sandbox/chain/anvil.ts';

/** Private key of anvil's dev account `i` (test mnemonic; never a real wallet). */
export function devKey(i: number): string {
  return HDNodeWallet.fromMnemonic(Mnemonic.fromPhrase(DEFAULT_MNEMONIC), `m/44'/60'/0'/0/${i}`).privateKey;
}

export async function rpcCall(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/**
 * A JSON-RPC proxy in front of anvil whose eth_sendRawTransaction can misbehave:
 * `forward-then-hang` passes the transaction on but never answers (the node has it, we time out);
 * `hang` neither forwards nor answers (the node never saw it).
 */
export interface FaultyProxy {
  readonly url: string;
  mode: 'pass' | 'forward-then-hang' | 'hang';
  /** Raw transactions that reached the proxy, in order. */
  readonly sends: string[];
  close(): Promise<void>;
}

export async function startFaultyProxy(target: string): Promise<FaultyProxy> {
  const held = new Set<import('node:http').ServerResponse>();
  const proxy: FaultyProxy = {
    url: '',
    mode: 'pass',
    sends: [],
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of held) r.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const parsed = JSON.parse(body) as { method?: string; params?: unknown[] };
      const isSend = parsed.method === 'eth_sendRawTransaction';
      if (isSend) proxy.sends.push(String(parsed.params?.[0]));
      if (isSend && proxy.mode !== 'pass') {
        held.add(res);
        if (proxy.mode === 'forward-then-hang') {
          await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        }
        return; // never answer
      }
      const upstream = await fetch(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      res.writeHead(upstream.status, { 'content-type': 'application/json' });
      res.end(await upstream.text());
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const addr = server.address();
  (proxy as { url: string }).url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  return proxy;
}
