import { Contract } from 'ethers';
import { hashString } from '../../catalog/traits.ts';
import { HttpError } from '../../errors.ts';
import type { Route, ServerState } from '../types.ts';

/**
 * Token metadata, what the collections' `tokenURI`/`uri` point at (no API key, like any metadata
 * host): `GET /metadata/{slug}/{tokenId}` → ERC721 metadata JSON from the catalog, and the token's
 * picture at `/metadata/{slug}/{tokenId}/image.svg`. ERC1155 clients may substitute `{id}` as 64
 * hex digits; both spellings are accepted.
 *
 * Drops (contracts/SandboxDrop.sol) point their `tokenURI` here too: a drop's token exists once
 * minted (ids 1..`totalSupply`, read from the chain at each request); its metadata is the drop's
 * name and description, with no traits. The off-chain collection's items (ids 1..items) are
 * served with their deterministic traits.
 */

interface TokenSource {
  readonly name: string;
  readonly symbol: string;
  readonly description: string;
  readonly id: bigint;
  readonly attributes: readonly { trait_type: string; value: string | number; display_type?: string }[];
}

function tokenIdOf(raw: string): bigint {
  const id = raw.replace(/\.json$/, '');
  if (/^\d{1,78}$/.test(id)) return BigInt(id);
  if (/^[0-9a-fA-F]{64}$/.test(id)) return BigInt(`0x${id}`);
  throw new HttpError(400, `token id "${raw}" is neither decimal nor 64 hex digits`);
}

async function lookup(state: ServerState, slug: string, rawId: string): Promise<TokenSource> {
  const c = state.catalog?.bySlug(slug);
  if (c) {
    const id = tokenIdOf(rawId);
    if (id < 1n || id > BigInt(c.supply)) throw new HttpError(404, `Token ${slug} #${id} does not exist`);
    const attributes = (state.catalog?.traits(slug, id) ?? []).map((t) => ({
      trait_type: t.trait_type,
      value: t.value,
      ...(t.display_type !== undefined ? { display_type: t.display_type } : {}),
    }));
    return { name: c.name, symbol: c.symbol, description: c.description, id, attributes };
  }
  const off = state.offchain;
  if (off && off.slug === slug) {
    const id = tokenIdOf(rawId);
    if (id < 1n || id > BigInt(off.items)) throw new HttpError(404, `Token ${slug} #${id} does not exist`);
    const attributes = off.traits(id).map((t) => ({
      trait_type: t.trait_type,
      value: t.value,
      ...(t.display_type !== undefined ? { display_type: t.display_type } : {}),
    }));
    return { name: off.name, symbol: off.symbol, description: off.description, id, attributes };
  }
  const fx = state.fixture;
  const d = fx?.drops.find((x) => x.slug === slug);
  if (!fx || !d) throw new HttpError(404, `Collection ${slug} not found`);
  const id = tokenIdOf(rawId);
  const minted = (await new Contract(d.address, d.contract.interface, fx.provider).getFunction(
    'totalSupply',
  )()) as bigint;
  if (id < 1n || id > minted) throw new HttpError(404, `Token ${slug} #${id} does not exist (not minted)`);
  return { name: d.name, symbol: d.symbol, description: d.description, id, attributes: [] };
}

/** A small deterministic SVG per token (colour from slug and id). */
export function tokenSvg(name: string, slug: string, id: bigint): string {
  const hue = hashString(`${slug}:${id}`) % 360;
  const safe = name.replace(/[<>&"]/g, '');
  return [
    '<svg xmlns="http://www.w3.org/2000/svg" width="350" height="350" viewBox="0 0 350 350">',
    `<rect width="350" height="350" fill="hsl(${hue},60%,55%)"/>`,
    `<text x="175" y="185" font-family="monospace" font-size="24" text-anchor="middle" fill="#fff">${safe}</text>`,
    '</svg>',
  ].join('');
}

export function metadataRoutes(state: ServerState): Route[] {
  return [
    {
      method: 'GET',
      pattern: '/metadata/{slug}/{tokenId}',
      access: 'public',
      handler: async ({ params }) => {
        const slug = params['slug'] as string;
        const t = await lookup(state, slug, params['tokenId'] as string);
        return {
          json: {
            name: `${t.name} #${t.id}`,
            description: t.description,
            image: `${state.publicUrl}/metadata/${slug}/${t.id}/image.svg`,
            attributes: t.attributes,
          },
        };
      },
    },
    {
      method: 'GET',
      pattern: '/metadata/{slug}/{tokenId}/image.svg',
      access: 'public',
      handler: async ({ params }) => {
        const slug = params['slug'] as string;
        const t = await lookup(state, slug, params['tokenId'] as string);
        return { text: tokenSvg(`${t.symbol} #${t.id}`, slug, t.id), contentType: 'image/svg+xml' };
      },
    },
  ];
}
