/**
 * A daemon-like process for the crash tests: reconciles, then sends one intent and kills itself
 * (SIGKILL, no cleanup) at the crash point named on the command line.
 *
 *   node --import tsx crash-child.ts <rpcUrl> <chainId> <dbPath> <intentId> <crashPoint>
 *
 * Crash points: after-write (recorded, never broadcast), after-broadcast (the node has it, the
 * store still says signed), after-submit (store says sent, no receipt yet).
 * The key comes from HARPOON_TEST_KEY.
 */

import { createEthersRpc, createTxSender, signerFromPrivateKey } from '../../../src/chain/index.ts';
import { Secret } from '../../../src/domain/secret.ts';
import { openStore } from '../../../src/store/index.ts';

const [rpcUrl, chainIdText, dbPath, intentId, crashPoint] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
];
const die = () => process.kill(process.pid, 'SIGKILL');

const real = createEthersRpc({ url: rpcUrl, chainId: Number(chainIdText), timeoutMs: 5_000 });
const rpc = {
  ...real,
  chainId: real.chainId,
  async sendRawTransaction(raw: string) {
    if (crashPoint === 'after-write') die();
    const hash = await real.sendRawTransaction(raw);
    if (crashPoint === 'after-broadcast') die();
    return hash;
  },
};
const store = openStore(dbPath);
const sender = createTxSender({
  signer: signerFromPrivateKey(new Secret(process.env.HARPOON_TEST_KEY ?? '')),
  rpc,
  store,
  feeCaps: { maxFeePerGas: 100_000_000_000n, maxPriorityFeePerGas: 3_000_000_000n },
});
await sender.reconcile();
store.intents.create({
  id: intentId,
  strategy: 'sniper',
  kind: 'BuyListing',
  targetKey: `listing:${intentId}`,
  payload: {},
});
await sender.submit(intentId, { to: '0x00000000000000000000000000000000000000bb', value: 12_345n });
if (crashPoint === 'after-submit') die();
process.stdout.write('no crash\n');
