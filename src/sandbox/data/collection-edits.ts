import { z } from 'zod';
import { type CreatorFee, MARKETPLACE_FEE_RECIPIENT } from '../catalog/catalog.ts';
import { HttpError } from '../errors.ts';

/**
 * What collection owners and editors save about a collection, and what a collection refresh does
 * to it (spec, Collections: `PATCH /api/v2/collections/{slug}`, `PATCH .../metadata`, refresh
 * rules 1–3).
 *
 * - `PATCH /api/v2/collections/{slug}` (ModifyCollectionRequest) saves name, description, logo and
 *   banner image, category, NSFW flag, external/Telegram URL, Medium username and the authorized
 *   editors. Image tokens: the sandbox has no upload service, so an image token is an http(s) URL
 *   of the image. `creator_fees` (up to 5 recipients, 0–1000 basis points each, each recipient
 *   once) replace the creator fees of a catalog collection (`Catalog.setCreatorFees`; the route
 *   applies them, and refuses them for drops and off-chain collections); a 0 bps entry pays no
 *   one. Fields the sandbox cannot honour (a new slug, buyer-side fees, trait-offer and rarity
 *   switches) are refused with 400 rather than silently dropped.
 * - `PATCH /api/v2/collections/{slug}/metadata` (UpdateCollectionMetadataRequest) saves the page
 *   content: overview modules, about sections and preview media, desktop and mobile hero media,
 *   and a logo image token (the same logo as above).
 * - A refresh (rule 1) re-reads contract-level metadata — the JSON at the contract's
 *   `contractURI()`, or, for a contract without one, its `name()` — and refetches the items whose
 *   metadata was missing (their last fetch failed). Rule 2: name, description, image and banner
 *   set there replace the saved values; a field left out or blank keeps the saved value. Rule 3:
 *   overview and about sections are kept; hero media (`hero_image`, `mobile_hero_image`) and
 *   preview media (`featured_image`) fetched from the contract-level JSON replace the saved slot,
 *   and a slot the JSON does not fill keeps what was saved.
 */

const URL_OR_EMPTY = /^$|^(https?):\/\/.+$/;
const ADDRESS = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'an address');
const IMAGE_TOKEN = z
  .string()
  .min(1)
  .regex(/^https?:\/\/.+$/, 'the sandbox takes an http(s) URL of the image as its image token');

const modifySchema = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(100)
    .regex(/^[\x20-\x7E]+$/, 'printable ASCII only')
    .optional(),
  description: z.string().max(1000).optional(),
  logo_image_token: IMAGE_TOKEN.optional(),
  banner_image_token: IMAGE_TOKEN.optional(),
  category: z.string().optional(),
  is_nsfw: z.boolean().optional(),
  authorized_editors: z.array(ADDRESS).max(10).optional(),
  external_url: z.string().regex(URL_OR_EMPTY, 'an http(s) URL or empty').optional(),
  telegram_url: z.string().regex(URL_OR_EMPTY, 'an http(s) URL or empty').optional(),
  medium_username: z
    .string()
    .min(1)
    .max(50)
    .regex(/^[a-zA-Z0-9_-]+$/)
    .optional(),
  creator_fees: z
    .array(
      z.strictObject({
        address: ADDRESS,
        basis_points: z.number().int().min(0).max(1000),
      }),
    )
    .max(5)
    .superRefine((fees, ctx) => {
      const seen = new Set<string>();
      fees.forEach((f, i) => {
        const a = f.address.toLowerCase();
        if (a === MARKETPLACE_FEE_RECIPIENT.toLowerCase()) {
          ctx.addIssue({
            code: 'custom',
            path: [i, 'address'],
            message: 'the marketplace fee recipient takes the marketplace fee, not a creator fee',
          });
        } else if (seen.has(a)) {
          ctx.addIssue({
            code: 'custom',
            path: [i, 'address'],
            message: `${a} is named twice (one creator fee per recipient)`,
          });
        }
        seen.add(a);
      });
    })
    .optional(),
});

/** ModifyCollectionRequest fields the sandbox refuses (it cannot honour them). */
const UNSUPPORTED = [
  'slug',
  'buyer_side_creator_fee_enabled',
  'buyer_side_creator_fee_basis_points',
  'buyer_side_creator_fee_recipient',
  'is_trait_offers_enabled',
  'is_rarity_disabled',
];

const imageMedia = z.object({ token: z.string().min(1) });
const media = z.object({
  image: imageMedia.optional(),
  video: z.object({ token: z.string().min(1), enable_static_video: z.boolean().optional() }).optional(),
});
const text = (max: number) => z.string().max(max);
const moduleBase = { index: z.number().int(), id: z.string().optional() };

const metadataSchema = z.strictObject({
  about: z
    .object({
      preview_media: z.array(media).max(10).optional(),
      sections: z
        .array(
          z.object({
            id: z.string().optional(),
            title: z.string().min(1).max(100),
            description: z.string().min(1).max(1000),
            media: z.array(media).optional(),
          }),
        )
        .max(10)
        .optional(),
    })
    .optional(),
  hero: z.object({ desktop_hero_media: media.optional(), mobile_hero_media: media.optional() }).optional(),
  overview: z
    .object({
      modules: z.object({
        narrative: z
          .array(z.object({ ...moduleBase, title: text(100), description: text(1000) }).catchall(z.unknown()))
          .max(50)
          .optional(),
        content_block: z.array(z.object(moduleBase).catchall(z.unknown())).max(10).optional(),
        team: z.array(z.object(moduleBase).catchall(z.unknown())).max(5).optional(),
        faq: z.array(z.object(moduleBase).catchall(z.unknown())).max(5).optional(),
      }),
    })
    .optional(),
  logo_image_token: IMAGE_TOKEN.optional(),
});

export type MediaInput = z.infer<typeof media>;
export type ModifyCollectionRequest = z.infer<typeof modifySchema>;
export type UpdateCollectionMetadataRequest = z.infer<typeof metadataSchema>;

function reasonsOf(error: z.ZodError): string[] {
  return error.issues.map((i) => `${i.path.length > 0 ? i.path.join('.') : 'body'}: ${i.message}`);
}

/** The PATCH collection body; 400 with every reason when it does not fit. */
export function parseModifyCollection(body: unknown): ModifyCollectionRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HttpError(400, 'The request body must be a JSON object (ModifyCollectionRequest)');
  }
  const refused = Object.keys(body).filter((k) => UNSUPPORTED.includes(k));
  if (refused.length > 0) {
    throw new HttpError(
      400,
      refused.map((k) => `${k}: cannot be changed on the sandbox`),
    );
  }
  const r = modifySchema.safeParse(body);
  if (!r.success) throw new HttpError(400, reasonsOf(r.error));
  if (Object.keys(r.data).length === 0) throw new HttpError(400, 'body: nothing to change');
  return r.data;
}

/** The PATCH collection metadata body; 400 with every reason when it does not fit. */
export function parseUpdateMetadata(body: unknown): UpdateCollectionMetadataRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HttpError(400, 'The request body must be a JSON object (UpdateCollectionMetadataRequest)');
  }
  const r = metadataSchema.safeParse(body);
  if (!r.success) throw new HttpError(400, reasonsOf(r.error));
  if (Object.keys(r.data).length === 0) throw new HttpError(400, 'body: nothing to change');
  return r.data;
}

/** The collection fields the detail (`GET /api/v2/collections/{slug}`) shows, as saved. */
export interface SavedFields {
  name?: string;
  description?: string;
  image_url?: string;
  banner_image_url?: string;
  category?: string;
  is_nsfw?: boolean;
  project_url?: string;
  telegram_url?: string;
  medium_username?: string;
}

/** The page content (overview, about, hero and preview media). */
export interface PageContent {
  overview?: UpdateCollectionMetadataRequest['overview'];
  about_sections?: NonNullable<UpdateCollectionMetadataRequest['about']>['sections'];
  preview_media?: MediaInput[];
  desktop_hero_media?: MediaInput;
  mobile_hero_media?: MediaInput;
}

export interface CollectionProfile {
  readonly fields: SavedFields;
  /** Authorized editors (lower-case addresses), besides the owner. */
  editors: string[];
  readonly page: PageContent;
  refreshedAtMs?: number;
}

export const emptyProfile = (): CollectionProfile => ({ fields: {}, editors: [], page: {} });

/**
 * The creator fees of a PATCH body as the catalog takes them (percent = basis points / 100, as the
 * API's `fee` spells it); undefined when the body leaves them alone.
 */
export function creatorFeesOf(m: ModifyCollectionRequest): CreatorFee[] | undefined {
  return m.creator_fees?.map((f) => ({ recipient: f.address, percent: f.basis_points / 100 }));
}

/** Saves the profile fields of a PATCH body (its creator fees go to the catalog: `creatorFeesOf`). */
export function applyModify(p: CollectionProfile, m: ModifyCollectionRequest): void {
  const f = p.fields;
  if (m.name !== undefined) f.name = m.name;
  if (m.description !== undefined) f.description = m.description;
  if (m.logo_image_token !== undefined) f.image_url = m.logo_image_token;
  if (m.banner_image_token !== undefined) f.banner_image_url = m.banner_image_token;
  if (m.category !== undefined) f.category = m.category;
  if (m.is_nsfw !== undefined) f.is_nsfw = m.is_nsfw;
  if (m.external_url !== undefined) f.project_url = m.external_url;
  if (m.telegram_url !== undefined) f.telegram_url = m.telegram_url;
  if (m.medium_username !== undefined) f.medium_username = m.medium_username;
  if (m.authorized_editors !== undefined) p.editors = m.authorized_editors.map((a) => a.toLowerCase());
}

export function applyMetadata(p: CollectionProfile, m: UpdateCollectionMetadataRequest): void {
  const page = p.page;
  if (m.overview !== undefined) page.overview = m.overview;
  if (m.about?.sections !== undefined) page.about_sections = m.about.sections;
  if (m.about?.preview_media !== undefined) page.preview_media = m.about.preview_media;
  if (m.hero?.desktop_hero_media !== undefined) page.desktop_hero_media = m.hero.desktop_hero_media;
  if (m.hero?.mobile_hero_media !== undefined) page.mobile_hero_media = m.hero.mobile_hero_media;
  if (m.logo_image_token !== undefined) p.fields.image_url = m.logo_image_token;
}

/** Contract-level metadata as a refresh reads it. */
export interface ContractMetadata {
  readonly name?: string;
  readonly description?: string;
  readonly image?: string;
  readonly banner_image?: string;
  readonly hero_image?: string;
  readonly mobile_hero_image?: string;
  readonly featured_image?: string;
}

/** The fields of a contract-level JSON the sandbox reads; anything else is ignored. */
export function parseContractMetadata(json: unknown): ContractMetadata {
  const o = (typeof json === 'object' && json !== null ? json : {}) as Record<string, unknown>;
  const out: Record<string, string> = {};
  const keys = [
    'name',
    'description',
    'image',
    'banner_image',
    'hero_image',
    'mobile_hero_image',
    'featured_image',
  ] as const;
  for (const k of keys) {
    const v = o[k];
    if (typeof v === 'string') out[k] = v;
  }
  // `banner_image_url` is a common spelling of the banner
  if (out['banner_image'] === undefined && typeof o['banner_image_url'] === 'string') {
    out['banner_image'] = o['banner_image_url'] as string;
  }
  return out;
}

const filled = (v: string | undefined): v is string => v !== undefined && v.trim() !== '';
const imageSlot = (url: string): MediaInput => ({ image: { token: url } });

/** Refresh rules 2 and 3: what the contract-level metadata replaces in a profile. */
export function applyRefresh(p: CollectionProfile, m: ContractMetadata, atMs: number): void {
  const f = p.fields;
  if (filled(m.name)) f.name = m.name.trim();
  if (filled(m.description)) f.description = m.description;
  if (filled(m.image)) f.image_url = m.image;
  if (filled(m.banner_image)) f.banner_image_url = m.banner_image;
  const page = p.page;
  if (filled(m.hero_image)) page.desktop_hero_media = imageSlot(m.hero_image);
  if (filled(m.mobile_hero_image)) page.mobile_hero_media = imageSlot(m.mobile_hero_image);
  if (filled(m.featured_image)) page.preview_media = [imageSlot(m.featured_image)];
  p.refreshedAtMs = atMs;
}
