import { AbiCoder, zeroPadValue } from 'ethers';
import { describe, expect, it } from 'vitest';
import {
  applyTransferLog,
  type BalanceMap,
  TRANSFER_BATCH_TOPIC,
  TRANSFER_SINGLE_TOPIC,
  TRANSFER_TOPIC,
} from '../../../../src/sandbox/data/holdings.ts';
import { decodeCursor, encodeCursor, pageOf } from '../../../../src/sandbox/data/paging.ts';
import { collectionTraits } from '../../../../src/sandbox/data/traits.ts';
import { HttpError } from '../../../../src/sandbox/errors.ts';

describe('collection traits', () => {
  it('categories string/number, value counts for text, min/max for numbers', () => {
    const t = collectionTraits([
      [
        { trait_type: 'Hat', value: 'Cap' },
        { trait_type: 'Level', value: 4, display_type: 'number' },
      ],
      [
        { trait_type: 'Hat', value: 'Crown' },
        { trait_type: 'Level', value: 9, display_type: 'number' },
      ],
      [
        { trait_type: 'Hat', value: 'Cap' },
        { trait_type: 'Level', value: 2, display_type: 'number' },
        { trait_type: 'Aura', value: 'Glow' },
      ],
    ]);
    expect(t).toEqual({
      categories: { Aura: 'string', Hat: 'string', Level: 'number' },
      counts: { Aura: { Glow: 1 }, Hat: { Cap: 2, Crown: 1 }, Level: { min: 2, max: 9 } },
    });
    expect(collectionTraits([])).toEqual({ categories: {}, counts: {} });
  });
});

const coder = AbiCoder.defaultAbiCoder();
const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const topic = (a: string) => zeroPadValue(a, 32);
const ZERO = addr(0);
const C721 = addr(0xaaa);
const C1155 = addr(0xbbb);

describe('holdings from transfer logs', () => {
  it('replays ERC721 transfers, ERC1155 single and batch transfers; ignores ERC20-shaped logs', () => {
    const b: BalanceMap = new Map();
    const t721 = (from: string, to: string, id: number) => ({
      address: C721,
      topics: [
        TRANSFER_TOPIC,
        topic(from),
        topic(to),
        zeroPadValue(`0x${id.toString(16).padStart(2, '0')}`, 32),
      ],
      data: '0x',
    });
    applyTransferLog(b, t721(ZERO, addr(1), 7));
    applyTransferLog(b, t721(addr(1), addr(2), 7));
    applyTransferLog(b, t721(ZERO, addr(1), 8));
    // ERC20 Transfer: same topic, 3 topics — not an NFT
    applyTransferLog(b, {
      address: C721,
      topics: [TRANSFER_TOPIC, topic(ZERO), topic(addr(3))],
      data: coder.encode(['uint256'], [5n]),
    });
    expect([...(b.get(C721)?.get('7') ?? new Map())]).toEqual([[addr(2), 1n]]);
    expect([...(b.get(C721)?.get('8') ?? new Map())]).toEqual([[addr(1), 1n]]);
    expect(b.get(C721)?.size).toBe(2);

    applyTransferLog(b, {
      address: C1155,
      topics: [TRANSFER_SINGLE_TOPIC, topic(addr(9)), topic(ZERO), topic(addr(1))],
      data: coder.encode(['uint256', 'uint256'], [3n, 10n]),
    });
    applyTransferLog(b, {
      address: C1155,
      topics: [TRANSFER_BATCH_TOPIC, topic(addr(9)), topic(addr(1)), topic(addr(2))],
      data: coder.encode(['uint256[]', 'uint256[]'], [[3n], [4n]]),
    });
    applyTransferLog(b, {
      address: C1155,
      topics: [TRANSFER_SINGLE_TOPIC, topic(addr(9)), topic(addr(2)), topic(ZERO)],
      data: coder.encode(['uint256', 'uint256'], [3n, 4n]),
    }); // burn
    expect([...(b.get(C1155)?.get('3') ?? new Map())]).toEqual([[addr(1), 6n]]);
  });
});

describe('offset cursors', () => {
  it('round-trip, refuse other lists and garbage, page through', () => {
    expect(decodeCursor('a', encodeCursor('a', 40))).toBe(40);
    expect(decodeCursor('a', undefined)).toBe(0);
    expect(() => decodeCursor('b', encodeCursor('a', 1))).toThrow(HttpError);
    expect(() => decodeCursor('a', 'garbage!')).toThrow(/invalid cursor/);
    const all = [1, 2, 3, 4, 5];
    const p1 = pageOf(all, 't', 2, undefined);
    const p2 = pageOf(all, 't', 2, p1.next);
    const p3 = pageOf(all, 't', 2, p2.next);
    expect([p1.items, p2.items, p3.items]).toEqual([[1, 2], [3, 4], [5]]);
    expect(p3.next).toBeUndefined();
  });
});
