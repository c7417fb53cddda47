import { type Contract, getAddress, parseEther, type Signer } from 'ethers';
import type { DropSpec, DropStageSpec } from '../catalog/catalog.ts';
import { addressLeaf, MerkleTree } from '../merkle.ts';
import { deployContract, type ProjectArtifacts } from './contracts.ts';

export interface DeployedStage extends DropStageSpec {
  readonly index: number;
  /** Epoch seconds (chain time). */
  readonly start: number;
  readonly end: number;
  readonly priceWei: bigint;
  readonly allowlist: readonly string[];
  readonly allowlistRoot: string;
}

export interface DropDeployment extends Omit<DropSpec, 'stages'> {
  readonly address: string;
  readonly contract: Contract;
  readonly stages: readonly DeployedStage[];
  /** Merkle tree of the allowlist (undefined when there is none). */
  readonly allowlistTree: MerkleTree | undefined;
}

const ZERO32 = `0x${'00'.repeat(32)}`;

/** Deploys a staged drop (contracts/SandboxDrop.sol) with stages relative to `chainNow`. */
export async function deployDrop(
  admin: Signer,
  artifacts: ProjectArtifacts,
  spec: DropSpec,
  chainNow: number,
  allowlist: readonly string[],
  metadataBaseUrl: string,
): Promise<DropDeployment> {
  const contract = await deployContract(artifacts, 'SandboxDrop', admin, [
    spec.name,
    spec.symbol,
    `${metadataBaseUrl}/${spec.slug}/`,
    BigInt(spec.maxSupply),
  ]);
  const tree = allowlist.length > 0 ? new MerkleTree(allowlist.map(addressLeaf)) : undefined;
  const stages: DeployedStage[] = [];
  for (const [index, s] of spec.stages.entries()) {
    const list = s.kind === 'allowlist' ? allowlist.map((a) => getAddress(a)) : [];
    const root = s.kind === 'allowlist' && tree ? tree.root : ZERO32;
    const stage = {
      ...s,
      index,
      start: chainNow + s.startOffsetSec,
      end: chainNow + s.endOffsetSec,
      priceWei: parseEther(s.price),
      allowlist: list,
      allowlistRoot: root,
    };
    await (
      await contract.getFunction('setStage')(BigInt(index), {
        start: BigInt(stage.start),
        end: BigInt(stage.end),
        price: stage.priceWei,
        perWalletLimit: s.perWalletLimit,
        supply: s.supply,
        minted: 0,
        allowlistRoot: root,
      })
    ).wait();
    stages.push(stage);
  }
  if (spec.paused) await (await contract.getFunction('setPaused')(true)).wait();
  const { stages: _specStages, ...rest } = spec;
  return { ...rest, address: getAddress(await contract.getAddress()), contract, stages, allowlistTree: tree };
}
