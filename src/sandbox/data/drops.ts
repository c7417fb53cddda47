import {
  Contract,
  getAddress,
  isHexString,
  keccak256,
  toBeHex,
  toUtf8Bytes,
  ZeroAddress,
  ZeroHash,
} from 'ethers';
import type { DropDeployment } from '../chain/drops.ts';
import type { ChainFixture } from '../chain/fixture.ts';
import { HttpError } from '../errors.ts';
import { addressLeaf, verifyProof } from '../merkle.ts';

/**
 * Drops (contracts/SandboxDrop.sol, deployed by the chain fixture) as the API shows them, read
 * from the chain at every request: stages (window, price, per-wallet limit, supply, minted,
 * allowlist root), `paused`, the total and maximum supply, and the chain's time.
 *
 * Activity (spec, States: active, not started, ended, paused): paused wins; otherwise active while
 * a stage's window holds the chain time; not started while a stage is still ahead; else ended.
 *
 * Mint (`POST /api/v2/drops/{slug}/mint {minter, quantity}`): 400 for a bad body, 404 for an
 * unknown slug, 409 unless active, then the first active stage (in stage order) for which the
 * minter is eligible — on its allowlist (a proof from the deployment's tree that verifies against
 * the root on chain), within the stage's per-wallet limit (`mintedInStage` on chain) and within
 * the stage's supply and the drop's maximum supply — else 422 naming each active stage's failed
 * precondition. The answer is the call `mint(stageIndex, minter, quantity, proof)` with
 * `value = price × quantity` (hex wei): whoever sends it pays, the minter receives.
 */

export interface StageState {
  readonly index: number;
  readonly name: string;
  readonly kind: 'public' | 'allowlist';
  /** Epoch seconds (chain time). */
  readonly start: number;
  readonly end: number;
  readonly price: bigint;
  readonly perWalletLimit: number;
  readonly supply: number;
  readonly minted: number;
  readonly allowlistRoot: string;
  /** Wallets on the stage's allowlist (allowlist stages). */
  readonly allowlistCount: number | undefined;
}

export interface DropState {
  readonly slug: string;
  readonly name: string;
  /** Checksummed. */
  readonly address: string;
  readonly paused: boolean;
  readonly totalSupply: bigint;
  readonly maxSupply: bigint;
  /** Chain time of the latest block, epoch seconds. */
  readonly now: number;
  readonly stages: readonly StageState[];
}

export type DropActivity = 'active' | 'not_started' | 'ended' | 'paused';

export const stageActive = (s: Pick<StageState, 'start' | 'end'>, now: number): boolean =>
  now >= s.start && now < s.end;

export function activityOf(d: Pick<DropState, 'paused' | 'stages' | 'now'>): DropActivity {
  if (d.paused) return 'paused';
  if (d.stages.some((s) => stageActive(s, d.now))) return 'active';
  if (d.stages.some((s) => s.start > d.now)) return 'not_started';
  return 'ended';
}

export function dropContract(fx: ChainFixture, d: DropDeployment): Contract {
  return new Contract(d.address, d.contract.interface, fx.provider);
}

export async function readDropState(fx: ChainFixture, d: DropDeployment): Promise<DropState> {
  const c = dropContract(fx, d);
  const [block, paused, totalSupply, maxSupply, count] = await Promise.all([
    fx.provider.getBlock('latest'),
    c.getFunction('paused')() as Promise<boolean>,
    c.getFunction('totalSupply')() as Promise<bigint>,
    c.getFunction('maxSupply')() as Promise<bigint>,
    c.getFunction('stageCount')() as Promise<bigint>,
  ]);
  const raw = await Promise.all(
    Array.from({ length: Number(count) }, (_, i) => c.getFunction('stage')(BigInt(i)) as Promise<unknown[]>),
  );
  const stages = raw.map((r, index): StageState => {
    const [start, end, price, perWalletLimit, supply, minted, allowlistRoot] = r as [
      bigint,
      bigint,
      bigint,
      bigint,
      bigint,
      bigint,
      string,
    ];
    const spec = d.stages[index];
    const isAllowlist = allowlistRoot !== ZeroHash;
    return {
      index,
      name: spec?.name ?? `Stage ${index + 1}`,
      kind: isAllowlist ? 'allowlist' : 'public',
      start: Number(start),
      end: Number(end),
      price,
      perWalletLimit: Number(perWalletLimit),
      supply: Number(supply),
      minted: Number(minted),
      allowlistRoot,
      allowlistCount: isAllowlist ? (spec?.allowlist.length ?? 0) : undefined,
    };
  });
  return {
    slug: d.slug,
    name: d.name,
    address: getAddress(d.address),
    paused,
    totalSupply,
    maxSupply,
    now: block?.timestamp ?? Math.floor(Date.now() / 1000),
    stages,
  };
}

// ── rendering ───────────────────────────────────────────────────────────────────────────────

const iso = (epochSec: number): string => new Date(epochSec * 1000).toISOString();

/** A stable UUID-shaped id of a stage. */
export function stageUuid(address: string, index: number): string {
  const h = keccak256(toUtf8Bytes(`${address.toLowerCase()}:${index}`)).slice(2, 34);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export function renderStage(d: Pick<DropState, 'address'>, s: StageState): Record<string, unknown> {
  return {
    uuid: stageUuid(d.address, s.index),
    stage_type: s.kind === 'allowlist' ? 'allowlist' : 'public_sale',
    label: s.name,
    price: s.price.toString(),
    price_currency_address: ZeroAddress,
    start_time: iso(s.start),
    end_time: iso(s.end),
    max_per_wallet: String(s.perWalletLimit),
    ...(s.allowlistCount !== undefined ? { allowlist_wallet_count: s.allowlistCount } : {}),
  };
}

export const DROP_TYPE = 'sandbox_drop_erc721';

/** DropResponse (lists) or DropDetailedResponse (`detailed`). */
export function renderDrop(d: DropState, chain: string, detailed: boolean): Record<string, unknown> {
  const activity = activityOf(d);
  const active = activity === 'active' ? d.stages.find((s) => stageActive(s, d.now)) : undefined;
  const upcoming =
    activity === 'active'
      ? undefined
      : [...d.stages]
          .filter((s) => s.start > d.now)
          .sort((a, b) => a.start - b.start || a.index - b.index)[0];
  return {
    collection_slug: d.slug,
    collection_name: d.name,
    chain,
    contract_address: d.address.toLowerCase(),
    drop_type: DROP_TYPE,
    is_minting: activity === 'active',
    opensea_url: `https://opensea.io/collection/${d.slug}/overview`,
    ...(active ? { active_stage: renderStage(d, active) } : {}),
    ...(upcoming ? { next_stage: renderStage(d, upcoming) } : {}),
    ...(detailed
      ? {
          stages: d.stages.map((s) => renderStage(d, s)),
          total_supply: d.totalSupply.toString(),
          max_supply: d.maxSupply.toString(),
        }
      : {}),
  };
}

// ── mint ────────────────────────────────────────────────────────────────────────────────────

export interface MintRequest {
  /** Checksummed. */
  readonly minter: string;
  readonly quantity: number;
}

export const MAX_MINT_QUANTITY = 100;

/** The staged mint of SandboxDrop (it also has the ERC721 `mint(address,uint256)`, which reverts). */
export const MINT_SIGNATURE = 'mint(uint256,address,uint256,bytes32[])';

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The mint body; 400 for a missing field, a bad address or a quantity outside 1..100. */
export function parseMintRequest(body: unknown): MintRequest {
  if (!isRecord(body)) throw new HttpError(400, 'The request body must be a JSON object {minter, quantity}');
  const missing = ['minter', 'quantity'].filter((k) => body[k] === undefined || body[k] === null);
  if (missing.length > 0)
    throw new HttpError(
      400,
      missing.map((k) => `${k}: required field is missing`),
    );
  const m = body['minter'];
  if (typeof m !== 'string' || !isHexString(m, 20)) {
    throw new HttpError(400, `minter: '${String(m)}' is not a valid address`);
  }
  let minter: string;
  try {
    minter = getAddress(m);
  } catch {
    throw new HttpError(400, `minter: '${m}' is not a valid address (bad checksum)`);
  }
  const q = body['quantity'];
  const quantity = typeof q === 'string' && /^\d+$/.test(q) ? Number(q) : q;
  if (
    typeof quantity !== 'number' ||
    !Number.isInteger(quantity) ||
    quantity < 1 ||
    quantity > MAX_MINT_QUANTITY
  ) {
    throw new HttpError(
      400,
      `quantity: must be an integer from 1 to ${MAX_MINT_QUANTITY}, got ${JSON.stringify(q)}`,
    );
  }
  return { minter, quantity };
}

export type MintProblem = 'not_on_allowlist' | 'limit_exceeded' | 'supply_exhausted';

export interface StageVerdict {
  readonly stage: StageState;
  /** Undefined when the minter may mint `quantity` through this stage. */
  readonly problem?: MintProblem;
  readonly message?: string;
  readonly proof: readonly string[];
}

/**
 * Whether `minter` may mint `quantity` through an (active) stage: the contract's checks in its
 * order — allowlist proof, per-wallet limit, stage supply and drop supply.
 */
export function judgeStage(
  s: StageState,
  d: Pick<DropState, 'totalSupply' | 'maxSupply'>,
  minter: string,
  quantity: number,
  mintedByMinter: number,
  proof: readonly string[] | undefined,
): StageVerdict {
  const label = `stage '${s.name}'`;
  if (s.allowlistRoot !== ZeroHash) {
    if (!proof || !verifyProof(addressLeaf(minter), proof, s.allowlistRoot)) {
      return {
        stage: s,
        problem: 'not_on_allowlist',
        message: `Wallet ${minter} is not on the allowlist of ${label}`,
        proof: [],
      };
    }
  }
  const used = proof ?? [];
  if (mintedByMinter + quantity > s.perWalletLimit) {
    return {
      stage: s,
      problem: 'limit_exceeded',
      message: `Mint limit exceeded on ${label}: ${s.perWalletLimit} per wallet, ${mintedByMinter} already minted by ${minter}, ${quantity} requested`,
      proof: used,
    };
  }
  const stageLeft = Math.max(0, s.supply - s.minted);
  const dropLeft = d.maxSupply > d.totalSupply ? d.maxSupply - d.totalSupply : 0n;
  if (quantity > stageLeft || BigInt(quantity) > dropLeft) {
    const left = BigInt(stageLeft) < dropLeft ? BigInt(stageLeft) : dropLeft;
    return {
      stage: s,
      problem: 'supply_exhausted',
      message: `Supply exhausted on ${label}: ${left} left, ${quantity} requested`,
      proof: used,
    };
  }
  return { stage: s, proof: used };
}

export interface MintTransaction {
  readonly to: string;
  readonly data: string;
  /** Wei, 0x-prefixed hex. */
  readonly value: string;
  readonly chain: string;
}

export function notActiveError(d: DropState, activity: Exclude<DropActivity, 'active'>): HttpError {
  const why =
    activity === 'paused'
      ? 'paused'
      : activity === 'not_started'
        ? `not started (the first stage starts at ${iso(Math.min(...d.stages.filter((s) => s.start > d.now).map((s) => s.start)))})`
        : 'ended';
  return new HttpError(409, `Drop ${d.slug} is not currently active: ${why}`);
}

/** Selects the stage and builds the mint transaction, or throws the API's 409/422. */
export async function buildMint(
  fx: ChainFixture,
  deployment: DropDeployment,
  req: MintRequest,
  chain: string,
): Promise<MintTransaction> {
  const d = await readDropState(fx, deployment);
  const activity = activityOf(d);
  if (activity !== 'active') throw notActiveError(d, activity);
  const c = dropContract(fx, deployment);
  const active = d.stages.filter((s) => stageActive(s, d.now));
  const verdicts: StageVerdict[] = [];
  for (const s of active) {
    const minted = Number((await c.getFunction('mintedInStage')(BigInt(s.index), req.minter)) as bigint);
    const proof =
      s.allowlistRoot !== ZeroHash ? deployment.allowlistTree?.proof(addressLeaf(req.minter)) : [];
    const v = judgeStage(s, d, req.minter, req.quantity, minted, proof);
    if (v.problem === undefined) {
      const data = c.interface.encodeFunctionData(MINT_SIGNATURE, [
        BigInt(s.index),
        req.minter,
        BigInt(req.quantity),
        v.proof,
      ]);
      return { to: d.address.toLowerCase(), data, value: toBeHex(s.price * BigInt(req.quantity)), chain };
    }
    verdicts.push(v);
  }
  throw new HttpError(
    422,
    verdicts.map((v) => v.message as string),
  );
}

/** One entry of `GET /api/v2/drops/{slug}/eligibility` (`DropStageEligibilityResponse`). */
export interface StageEligibility {
  readonly stage_uuid: string;
  readonly is_eligible: boolean;
  readonly price: string;
  readonly max_total_mintable_by_wallet: string;
}

/**
 * Per-stage eligibility of `wallet` (the wallet JWT's): every stage, whatever its window, judged
 * as a mint of one token would be — on the allowlist (allowlist stages), under the per-wallet
 * limit, supply left.
 */
export async function dropEligibility(
  fx: ChainFixture,
  deployment: DropDeployment,
  wallet: string,
): Promise<{ readonly stages: readonly StageEligibility[] }> {
  const d = await readDropState(fx, deployment);
  const c = dropContract(fx, deployment);
  const stages = await Promise.all(
    d.stages.map(async (s): Promise<StageEligibility> => {
      const minted = Number((await c.getFunction('mintedInStage')(BigInt(s.index), wallet)) as bigint);
      const proof = s.allowlistRoot !== ZeroHash ? deployment.allowlistTree?.proof(addressLeaf(wallet)) : [];
      return {
        stage_uuid: stageUuid(d.address, s.index),
        is_eligible: judgeStage(s, d, wallet, 1, minted, proof).problem === undefined,
        price: s.price.toString(),
        max_total_mintable_by_wallet: String(s.perWalletLimit),
      };
    }),
  );
  return { stages };
}

// ── admin (the owner's calls, from `/_sandbox/drops/...`) ──────────────────────────────────────

/** Pauses or resumes a drop on chain (`setPaused`, sent by the fixture's admin, the drop's owner). */
export async function setDropPaused(
  fx: ChainFixture,
  deployment: DropDeployment,
  paused: boolean,
): Promise<{ readonly txHash: string; readonly state: DropState }> {
  const c = new Contract(deployment.address, deployment.contract.interface, fx.admin);
  const tx = (await c.getFunction('setPaused')(paused)) as { hash: string; wait(): Promise<unknown> };
  await tx.wait();
  return { txHash: tx.hash, state: await readDropState(fx, deployment) };
}

export interface StageTimes {
  /** Epoch seconds (chain time). */
  readonly start: number;
  readonly end: number;
}

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);

/**
 * A stage-time move: `start`/`end` as epoch seconds, or `startOffsetSec`/`endOffsetSec` relative
 * to the chain's latest block time (one spelling per bound; a left-out bound keeps its value).
 * 400 unless the result has start < end.
 */
export function parseStageTimes(body: unknown, current: StageTimes, now: number): StageTimes {
  if (!isRecord(body)) {
    throw new HttpError(
      400,
      'The request body must be a JSON object {start|startOffsetSec, end|endOffsetSec}',
    );
  }
  const bound = (abs: 'start' | 'end', rel: 'startOffsetSec' | 'endOffsetSec', had: number): number => {
    const a = body[abs];
    const r = body[rel];
    if (a !== undefined && r !== undefined)
      throw new HttpError(400, `${abs}: give ${abs} or ${rel}, not both`);
    if (a !== undefined) {
      if (!isInt(a) || a < 0)
        throw new HttpError(400, `${abs}: must be epoch seconds (a non-negative integer)`);
      return a;
    }
    if (r !== undefined) {
      if (!isInt(r)) throw new HttpError(400, `${rel}: must be an integer number of seconds`);
      return Math.max(0, now + r);
    }
    return had;
  };
  const known = ['start', 'end', 'startOffsetSec', 'endOffsetSec'];
  const unknown = Object.keys(body).filter((k) => !known.includes(k));
  if (unknown.length > 0)
    throw new HttpError(
      400,
      unknown.map((k) => `${k}: unknown field`),
    );
  if (Object.keys(body).length === 0) throw new HttpError(400, 'Nothing to change: give start or end');
  const start = bound('start', 'startOffsetSec', current.start);
  const end = bound('end', 'endOffsetSec', current.end);
  if (start >= end)
    throw new HttpError(400, `The stage must start before it ends (start ${start}, end ${end})`);
  return { start, end };
}

/** Moves a stage's window on chain (`setStageWindow`: price, limits, supply and minted count stay). */
export async function moveStage(
  fx: ChainFixture,
  deployment: DropDeployment,
  index: number,
  body: unknown,
): Promise<{ readonly txHash: string; readonly state: DropState }> {
  const before = await readDropState(fx, deployment);
  const s = before.stages[index];
  if (!s) throw new HttpError(404, `Drop ${deployment.slug} has no stage ${index}`);
  const times = parseStageTimes(body, s, before.now);
  const c = new Contract(deployment.address, deployment.contract.interface, fx.admin);
  const tx = (await c.getFunction('setStageWindow')(
    BigInt(index),
    BigInt(times.start),
    BigInt(times.end),
  )) as { hash: string; wait(): Promise<unknown> };
  await tx.wait();
  return { txHash: tx.hash, state: await readDropState(fx, deployment) };
}

/** What the admin surface answers about a drop after a change. */
export function renderDropAdmin(d: DropState, txHash: string): Record<string, unknown> {
  return {
    slug: d.slug,
    status: activityOf(d),
    paused: d.paused,
    now: d.now,
    stages: d.stages.map((s) => ({
      index: s.index,
      name: s.name,
      start: s.start,
      end: s.end,
      minted: s.minted,
    })),
    txHash,
  };
}
