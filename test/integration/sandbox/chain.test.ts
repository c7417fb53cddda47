import { createServer, type Socket } from 'node:net';
import { Contract, JsonRpcProvider, Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FatalError } from '../../../src/errors/index.ts';
import {
  type AnvilHandle,
  DEFAULT_MNEMONIC,
  freePort,
  startAnvil,
} from '../../../src/sandbox/chain/anvil.ts';
import { deploySeaport, type SeaportDeployment } from '../../../src/sandbox/chain/seaport.ts';

describe('sandbox chain fixture: anvil + Seaport 1.6 from seaport-core', () => {
  let anvil: AnvilHandle;
  let deployment: SeaportDeployment;
  let provider: JsonRpcProvider;
  const progress: string[] = [];

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 1 });
    provider = new JsonRpcProvider(anvil.rpcUrl, 1, { staticNetwork: true });
    const deployer = Wallet.fromPhrase(DEFAULT_MNEMONIC, provider);
    deployment = await deploySeaport(deployer, { onProgress: (m) => progress.push(m) });
  }, 240_000);

  afterAll(async () => {
    provider?.destroy();
    await anvil?.stop();
  });

  it('serves chain id 1 on a free local port', async () => {
    expect(anvil.rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await provider.getNetwork()).chainId).toBe(1n);
  });

  it('deploys the real Seaport 1.6 that reports its version and an EIP-712 domain for this chain', async () => {
    const seaport = new Contract(deployment.seaport, deployment.seaportAbi as never[], provider);
    const [version, domainSeparator, conduitController] = (await seaport.getFunction('information')()) as [
      string,
      string,
      string,
    ];
    expect(version).toBe('1.6');
    expect(domainSeparator).toMatch(/^0x[0-9a-f]{64}$/);
    expect(conduitController).toBe(deployment.conduitController);
    expect(await seaport.getFunction('name')()).toBe('Seaport');
  });

  it('creates a conduit whose key starts with the owner and opens a channel to Seaport', async () => {
    expect(deployment.conduitKey).toMatch(/^0x[0-9a-f]{64}$/);
    const code = await provider.getCode(deployment.conduit);
    expect(code.length).toBeGreaterThan(2);
  });
});

describe('anvil on a port taken between picking and binding', () => {
  it('starts again on another free port; a port given by the caller is not changed', async () => {
    // another process holds the port the OS first named free
    const held = new Set<Socket>();
    const taken = createServer((socket) => {
      held.add(socket);
      socket.on('close', () => held.delete(socket));
    });
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const busy = (taken.address() as { port: number }).port;
    const picked: number[] = [];
    let anvil: AnvilHandle | undefined;
    try {
      anvil = await startAnvil({ chainId: 1, accounts: 2 }, async () => {
        const p = picked.length === 0 ? busy : await freePort();
        picked.push(p);
        return p;
      });
      expect(picked).toHaveLength(2);
      expect(picked[0]).toBe(busy);
      expect(anvil.port).toBe(picked[1]);
      const provider = new JsonRpcProvider(anvil.rpcUrl, 1, { staticNetwork: true });
      expect(await provider.getBlockNumber()).toBe(0);
      provider.destroy();
      // the caller's own port: its failure is the caller's to see
      const err = await startAnvil({ chainId: 1, accounts: 2, port: busy }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(FatalError);
      expect((err as FatalError).code).toBe('anvil_exited');
    } finally {
      await anvil?.stop();
      for (const socket of held) socket.destroy();
      await new Promise<void>((r) => taken.close(() => r()));
    }
  }, 60_000);
});
