import { ZeroHash } from 'ethers';
import { describe, expect, it } from 'vitest';
import {
  activityOf,
  judgeStage,
  parseMintRequest,
  renderDrop,
  type StageState,
  stageUuid,
} from '../../../../src/sandbox/data/drops.ts';
import { HttpError } from '../../../../src/sandbox/errors.ts';
import { addressLeaf, MerkleTree } from '../../../../src/sandbox/merkle.ts';

const A = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const B = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const C = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const tree = new MerkleTree([A, B].map(addressLeaf));

const stage = (over: Partial<StageState> = {}): StageState => ({
  index: 0,
  name: 'Public',
  kind: 'public',
  start: 100,
  end: 200,
  price: 10n,
  perWalletLimit: 3,
  supply: 10,
  minted: 0,
  allowlistRoot: ZeroHash,
  allowlistCount: undefined,
  ...over,
});

function status400(body: unknown): string {
  try {
    parseMintRequest(body);
  } catch (e) {
    expect(e).toBeInstanceOf(HttpError);
    expect((e as HttpError).status).toBe(400);
    return (e as HttpError).reasons.join(' | ');
  }
  throw new Error('expected 400');
}

describe('mint request', () => {
  it('accepts a minter address and a quantity 1..100', () => {
    expect(parseMintRequest({ minter: A.toLowerCase(), quantity: 2 })).toEqual({ minter: A, quantity: 2 });
    expect(parseMintRequest({ minter: A, quantity: '100' })).toEqual({ minter: A, quantity: 100 });
  });

  it('400: missing fields, bad address, bad quantity', () => {
    expect(status400({})).toBe('minter: required field is missing | quantity: required field is missing');
    expect(status400({ minter: A })).toMatch(/quantity: required/);
    expect(status400(undefined)).toMatch(/JSON object/);
    expect(status400([])).toMatch(/JSON object/);
    for (const m of ['bob', '0x1234', 42, `${A}00`])
      expect(status400({ minter: m, quantity: 1 })).toMatch(/minter/);
    // wrong EIP-55 checksum
    expect(status400({ minter: A.replace('C51812', 'c51812'), quantity: 1 })).toMatch(/checksum/);
    for (const q of [0, -1, 101, 1.5, 'abc', ''])
      expect(status400({ minter: A, quantity: q })).toMatch(/quantity/);
  });
});

describe('drop activity', () => {
  const stages = [stage({ start: 100, end: 200 }), stage({ index: 1, start: 300, end: 400 })];
  it('paused wins; active inside a window; not started before; ended after', () => {
    expect(activityOf({ paused: true, stages, now: 150 })).toBe('paused');
    expect(activityOf({ paused: false, stages, now: 150 })).toBe('active');
    expect(activityOf({ paused: false, stages, now: 50 })).toBe('not_started');
    expect(activityOf({ paused: false, stages, now: 250 })).toBe('not_started'); // between stages
    expect(activityOf({ paused: false, stages, now: 400 })).toBe('ended'); // end is exclusive
    expect(activityOf({ paused: false, stages, now: 100 })).toBe('active'); // start is inclusive
  });

  it('renders the active stage while minting and the next stage otherwise', () => {
    const d = { slug: 's', name: 'S', address: A, paused: false, totalSupply: 4n, maxSupply: 50n, stages };
    const live = renderDrop({ ...d, now: 150 }, 'ethereum', true);
    expect(live).toMatchObject({ is_minting: true, active_stage: { label: 'Public', price: '10' } });
    expect(live).not.toHaveProperty('next_stage');
    expect(live).toMatchObject({ total_supply: '4', max_supply: '50' });
    const between = renderDrop({ ...d, now: 250 }, 'ethereum', false);
    expect(between).toMatchObject({
      is_minting: false,
      next_stage: { start_time: new Date(300_000).toISOString() },
    });
    expect(between).not.toHaveProperty('active_stage');
    expect(between).not.toHaveProperty('stages');
  });

  it('stage ids are stable and UUID-shaped', () => {
    expect(stageUuid(A, 0)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(stageUuid(A, 0)).toBe(stageUuid(A.toLowerCase(), 0));
    expect(stageUuid(A, 1)).not.toBe(stageUuid(A, 0));
  });
});

describe('stage eligibility (the contract checks, in its order)', () => {
  const supply = { totalSupply: 0n, maxSupply: 100n };
  const allow = stage({ name: 'Allowlist', kind: 'allowlist', allowlistRoot: tree.root, perWalletLimit: 2 });

  it('allowlist: a member with a valid proof passes; others fail', () => {
    const ok = judgeStage(allow, supply, A, 1, 0, tree.proof(addressLeaf(A)));
    expect(ok.problem).toBeUndefined();
    expect(ok.proof.length).toBeGreaterThan(0);
    const no = judgeStage(allow, supply, C, 1, 0, tree.proof(addressLeaf(C)));
    expect(no.problem).toBe('not_on_allowlist');
    expect(no.message).toMatch(/not on the allowlist of stage 'Allowlist'/);
    // someone else's proof does not help
    expect(judgeStage(allow, supply, C, 1, 0, tree.proof(addressLeaf(A))).problem).toBe('not_on_allowlist');
  });

  it('per-wallet limit counts what the minter already minted in the stage', () => {
    expect(judgeStage(stage(), supply, A, 3, 0, []).problem).toBeUndefined();
    expect(judgeStage(stage(), supply, A, 1, 3, []).problem).toBe('limit_exceeded');
    expect(judgeStage(stage(), supply, A, 4, 0, []).message).toMatch(/3 per wallet, 0 already minted/);
  });

  it('supply: the stage supply and the drop maximum both bound', () => {
    expect(judgeStage(stage({ minted: 9 }), supply, A, 2, 0, []).problem).toBe('supply_exhausted');
    expect(judgeStage(stage({ minted: 8 }), supply, A, 2, 0, []).problem).toBeUndefined();
    const v = judgeStage(stage(), { totalSupply: 99n, maxSupply: 100n }, A, 2, 0, []);
    expect(v.problem).toBe('supply_exhausted');
    expect(v.message).toMatch(/1 left, 2 requested/);
  });
});
