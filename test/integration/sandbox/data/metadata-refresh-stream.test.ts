import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../../src/sandbox/index.ts';
import { expectValidResponse } from '../../../helpers/openapi.ts';
import { wait } from '../market/helpers.ts';
import { isArrayFrame, RawClient } from '../stream/harness.ts';
import { at, call, obj, startSandbox } from './helpers.ts';

/**
 * An NFT metadata refresh, end to end: queued by the API, re-read in the background from the
 * token URI, and announced on the stream as `item_metadata_updated` (wire: item.metadata with
 * description, background_color and traits) once the API already shows the refreshed token.
 * A refresh whose fetch fails changes nothing and announces nothing.
 */

let sb: Sandbox;
let host: Server;
let hostUrl: string;
/** What the metadata host answers: token id -> body (or an HTTP status). */
const served = new Map<string, unknown>();
const APES = 'harpoon-apes';
const R = '/api/v2/chain/{chain}/contract/{address}/nfts/{identifier}/refresh';

beforeAll(async () => {
  sb = await startSandbox(17);
  host = createServer((req, res) => {
    const id = (req.url ?? '').split('/').pop() ?? '';
    const body = served.get(id);
    if (typeof body === 'number' || body === undefined) {
      res.statusCode = typeof body === 'number' ? body : 404;
      res.end();
      return;
    }
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((r) => host.listen(0, '127.0.0.1', () => r()));
  hostUrl = `http://127.0.0.1:${(host.address() as AddressInfo).port}/m/`;
}, 120_000);
afterAll(async () => {
  host?.close();
  await sb?.close();
});

async function joined(topic: string): Promise<RawClient> {
  const c = await RawClient.connect(`${sb.streamUrl}/websocket?token=${sb.apiKey}&vsn=2.0.0`);
  c.send(['1', '1', topic, 'phx_join', {}]);
  expect(await c.take(isArrayFrame(topic, 'phx_reply'))).toEqual([
    '1',
    '1',
    topic,
    'phx_reply',
    { status: 'ok', response: {} },
  ]);
  return c;
}

const contractOf = (slug: string): string => {
  const c = sb.catalog.bySlug(slug)?.contract ?? sb.fixture.drops.find((d) => d.slug === slug)?.address;
  if (!c) throw new Error(`no contract for ${slug}`);
  return c.toLowerCase();
};

async function refresh(slug: string, id: string) {
  const a = await call(sb, 'POST', `/api/v2/chain/ethereum/contract/${contractOf(slug)}/nfts/${id}/refresh`);
  expect(a.status, JSON.stringify(a.body)).toBe(200);
  expectValidResponse('POST', R, 200, a.body);
  expect(a.body).toMatch(/queued/);
}

type Frame = [string | null, string | null, string, string, Record<string, unknown>];

describe('refresh -> item_metadata_updated on the stream', () => {
  it('catalog token: changed traits taken over, then the event with description, background colour and traits', async () => {
    const ape = sb.fixture.collections.find((c) => c.slug === APES)?.contract;
    if (!ape) throw new Error('no apes');
    const id = 7n;
    const hat = sb.catalog.traits(APES, id).find((t) => t.trait_type === 'Hat')?.value;
    const newHat = hat === 'Halo' ? 'Crown' : 'Halo';
    const failing = 8n;
    served.set(String(failing), 500);
    served.set(String(id), {
      name: `Ape ${id}`,
      description: 'Refreshed from the new host',
      background_color: '1a2b3c',
      attributes: sb.catalog
        .traits(APES, id)
        .map((t) => ({ trait_type: t.trait_type, value: t.trait_type === 'Hat' ? newHat : t.value })),
    });
    const c = await joined(`collection:${APES}`);
    await wait(ape.getFunction('setBaseURI')(hostUrl));
    try {
      // the failing one first: it must announce nothing, so the first frame is token 7's
      await refresh(APES, String(failing));
      await refresh(APES, String(id));
      const frame = (await c.take(
        isArrayFrame(`collection:${APES}`, 'item_metadata_updated'),
        10_000,
      )) as Frame;
      const payload = frame[4];
      expect(at(payload, 'payload.item.nft_id')).toBe(`ethereum/${contractOf(APES)}/${id}`);
      expect(at(payload, 'payload.collection.slug')).toBe(APES);
      expect(at(payload, 'payload.item.metadata.description')).toBe('Refreshed from the new host');
      expect(at(payload, 'payload.item.metadata.background_color')).toBe('1a2b3c');
      expect(at(payload, 'payload.item.metadata.name')).toBe(`Harpoon Apes #${id}`);
      const traits = at(payload, 'payload.item.metadata.traits') as Record<string, unknown>[];
      expect(traits).toContainEqual(
        expect.objectContaining({ trait_type: 'Hat', value: newHat, display_type: null, order: null }),
      );
      for (const t of traits) {
        expect(Object.keys(t).sort()).toEqual(
          ['display_type', 'max_value', 'order', 'trait_count', 'trait_type', 'value'].sort(),
        );
      }
      // visible through the API by the time the event is out
      const nft = obj(
        await call(sb, 'GET', `/api/v2/chain/ethereum/contract/${contractOf(APES)}/nfts/${id}`),
      );
      expect(at(nft, 'nft.traits')).toContainEqual({ trait_type: 'Hat', value: newHat });
      // the failed refresh announced nothing and changed nothing
      expect(
        c
          .all(isArrayFrame(`collection:${APES}`, 'item_metadata_updated'))
          .filter(
            (f) => at((f as Frame)[4], 'payload.item.nft_id') === `ethereum/${contractOf(APES)}/${failing}`,
          ),
      ).toEqual([]);
      const log = sb.events.all().filter((e) => e.kind === 'metadata_update' && e.nft?.identifier === '8');
      expect(log).toEqual([]);
    } finally {
      await wait(ape.getFunction('setBaseURI')(`${sb.apiUrl}/metadata/${APES}/`));
      c.close();
    }
  });

  it('a refresh without changes is announced too (drop token, on collection:*)', async () => {
    const slug = 'harpoon-genesis';
    const m = await call(sb, 'POST', `/api/v2/drops/${slug}/mint`, {
      minter: sb.wallets[1]?.address,
      quantity: 1,
    });
    expect(m.status).toBe(200);
    const tx = obj(m) as { to: string; data: string; value: string };
    const sender = sb.fixture.wallets[1];
    if (!sender) throw new Error('no wallet');
    expect((await (await sender.sendTransaction({ ...tx, value: BigInt(tx.value) })).wait())?.status).toBe(1);
    const c = await joined('collection:*');
    try {
      const before = sb.events.size;
      await refresh(slug, '1');
      const frame = (await c.take(isArrayFrame('collection:*', 'item_metadata_updated'), 10_000)) as Frame;
      expect(at(frame[4], 'payload.item.nft_id')).toBe(`ethereum/${contractOf(slug)}/1`);
      expect(at(frame[4], 'payload.collection.slug')).toBe(slug);
      expect(at(frame[4], 'payload.item.metadata.name')).toBe('Harpoon Genesis #1');
      expect(at(frame[4], 'payload.item.metadata.description')).toBe(
        sb.fixture.drops.find((d) => d.slug === slug)?.description,
      );
      expect(at(frame[4], 'payload.item.metadata.traits')).toEqual([]);
      expect(
        sb.events
          .all()
          .slice(before)
          .map((e) => e.kind),
      ).toContain('metadata_update');
    } finally {
      c.close();
    }
  });
});
