/**
 * Writes intent + transaction pairs, one IMMEDIATE transaction each, forever; the parent kills it
 * with SIGKILL mid-stream. Prints "ready" after the first commit.
 *
 *   node --import tsx writer-child.ts <dbPath>
 */
import { openStore } from '../../../src/store/index.ts';

const store = openStore(process.argv[2] as string);
for (let i = 0; ; i++) {
  store.transaction(() => {
    store.intents.create({
      id: `i${i}`,
      strategy: 's',
      kind: 'BuyListing',
      targetKey: `t${i}`,
      payload: { i },
    });
    store.transactions.insert({
      hash: `0x${i.toString(16).padStart(64, '0')}`,
      intentId: `i${i}`,
      wallet: '0xaa',
      chainId: 1,
      nonce: i,
      raw: `0x${'ab'.repeat(200)}`,
      state: 'signed',
      value: 10n ** 18n + BigInt(i),
      gasLimit: 21_000n,
      maxFeePerGas: 1n,
      maxPriorityFeePerGas: 1n,
    });
    store.nonces.set('0xaa', 1, i + 1);
  });
  if (i === 0) process.stdout.write('ready\n');
  if (i % 50 === 0) await new Promise((r) => setImmediate(r));
}
