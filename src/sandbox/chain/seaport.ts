import {
  Contract,
  ContractFactory,
  concat,
  getAddress,
  NonceManager,
  type Signer,
  zeroPadBytes,
} from 'ethers';
import { type CompileOptions, compile, contractOf, packageSource } from './compile.ts';

export const SEAPORT_SOURCE = 'seaport-core/src/Seaport.sol';
export const CONDUIT_CONTROLLER_SOURCE = 'seaport-core/src/conduit/ConduitController.sol';

export interface SeaportDeployment {
  readonly seaport: string;
  readonly conduitController: string;
  readonly conduit: string;
  /** bytes32: the conduit owner's address followed by 12 bytes chosen by the owner. */
  readonly conduitKey: string;
  readonly seaportAbi: readonly unknown[];
}

/** Compiles Seaport 1.6 and ConduitController from the npm package `seaport-core` (viaIR, cached). */
export function compileSeaport(options: CompileOptions = {}) {
  return compile(
    {
      label: 'Seaport 1.6',
      sources: {
        [SEAPORT_SOURCE]: packageSource(SEAPORT_SOURCE),
        [CONDUIT_CONTROLLER_SOURCE]: packageSource(CONDUIT_CONTROLLER_SOURCE),
      },
      viaIR: true,
      optimizerRuns: 200,
      evmVersion: 'cancun',
    },
    options,
  );
}

/**
 * Deploys ConduitController, a conduit (key = deployer address + `keySuffix`), and Seaport 1.6
 * wired to that controller, with the real contracts. The conduit opens a channel to Seaport.
 */
export async function deploySeaport(
  deployer: Signer,
  options: CompileOptions & { keySuffix?: string } = {},
): Promise<SeaportDeployment> {
  const compiled = await compileSeaport(options);
  // One nonce source for the whole sequence: provider-side caching must not hand out a used nonce.
  const signer = deployer instanceof NonceManager ? deployer : new NonceManager(deployer);
  const ccArtifact = contractOf(compiled, `${CONDUIT_CONTROLLER_SOURCE}:ConduitController`);
  const spArtifact = contractOf(compiled, `${SEAPORT_SOURCE}:Seaport`);

  const ccFactory = new ContractFactory(ccArtifact.abi as never[], ccArtifact.bytecode, signer);
  const cc = await ccFactory.deploy();
  await cc.waitForDeployment();
  const conduitController = getAddress(await cc.getAddress());

  const spFactory = new ContractFactory(spArtifact.abi as never[], spArtifact.bytecode, signer);
  const sp = await spFactory.deploy(conduitController);
  await sp.waitForDeployment();
  const seaport = getAddress(await sp.getAddress());

  const owner = getAddress(await signer.getAddress());
  const suffix = options.keySuffix ?? '0x000000000000000000000000';
  const conduitKey = concat([owner, zeroPadBytes(suffix, 12)]).toLowerCase();
  const controller = new Contract(conduitController, ccArtifact.abi as never[], signer);
  await (await controller.getFunction('createConduit')(conduitKey, owner)).wait();
  const [conduitAddr, exists] = (await controller.getFunction('getConduit')(conduitKey)) as [string, boolean];
  if (!exists) throw new Error('conduit was not created');
  await (await controller.getFunction('updateChannel')(conduitAddr, seaport, true)).wait();
  return {
    seaport,
    conduitController,
    conduit: getAddress(conduitAddr),
    conduitKey,
    seaportAbi: spArtifact.abi,
  };
}
