/**
 * A daemon-like process for the snipe crash tests: reconciles, then buys one listing through the
 * executor and kills itself (SIGKILL, no cleanup) at the named step.
 *
 *   node --import tsx crash-child.ts <dbPath> <intentId> <orderHash> <contract> <tokenId> <price> <killAt>
 *
 * killAt: an ExecutionStep (intent, fulfillment, guard, prepared, simulated, submitted, receipt, recorded),
 * `write-ahead` (the raw transaction recorded, eth_sendRawTransaction not issued) or `broadcast`
 * (the node has it, the store still says signed), or `none`.
 * Env: HARPOON_EXEC_FACTS (the sandbox facts as JSON), HARPOON_TEST_KEY (the wallet's dev key).
 */
import { ZeroAddress } from 'ethers';
import type { ChainRpc } from '../../../src/chain/index.ts';
import { type SandboxFacts, wire } from './wiring.ts';

const [dbPath, intentId, orderHash, contract, tokenId, price, killAt] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
  string,
  string,
];
const die = () => process.kill(process.pid, 'SIGKILL');
const facts = JSON.parse(process.env['HARPOON_EXEC_FACTS'] ?? '{}') as SandboxFacts;

const wired = wire(facts, process.env['HARPOON_TEST_KEY'] ?? '', dbPath, {
  onStep: (step) => {
    if (step === killAt) die();
  },
  wrapRpc: (rpc: ChainRpc): ChainRpc => ({
    ...rpc,
    chainId: rpc.chainId,
    async sendRawTransaction(raw: string) {
      if (killAt === 'write-ahead') die();
      const hash = await rpc.sendRawTransaction(raw);
      if (killAt === 'broadcast') die();
      return hash;
    },
  }),
});
await wired.executor.reconcile();
const out = await wired.executor.buyListing({
  intentId,
  orderHash,
  collection: 'harpoon-apes',
  nft: { contract, tokenId: BigInt(tokenId), standard: 'erc721' },
  maxPrice: BigInt(price),
  paymentToken: ZeroAddress,
  feeRecipients: facts.feeRecipients,
});
process.stdout.write(`${JSON.stringify({ state: out.state, txHash: out.txHash ?? null })}\n`);
await wired.close();
process.exit(0);
