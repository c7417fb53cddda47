/**
 * What the daemon integration tests read beside a running daemon: our offers ACTIVE in the
 * sandbox's own book (its REST API, every page), the daemon's store (read-only; WAL lets us read
 * beside the writer), and the sandbox's fault switches.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import type { Sandbox } from '../../../src/sandbox/index.ts';

export interface ActiveOffer {
  readonly collection: string;
  /** Worst case: everything the offer commits (sum of its offer items). */
  readonly amount: bigint;
}

/** Our offers ACTIVE in the sandbox's book: hash → collection and worst case. */
export async function activeOffers(
  sb: Sandbox,
  wallet: string,
  collections: readonly string[],
): Promise<Map<string, ActiveOffer>> {
  const me = wallet.toLowerCase();
  const out = new Map<string, ActiveOffer>();
  for (const c of collections) {
    let next: string | undefined;
    do {
      const url = new URL(`${sb.apiUrl}/api/v2/offers/collection/${c}/all`);
      url.searchParams.set('limit', '100');
      if (next !== undefined) url.searchParams.set('next', next);
      const res = await fetch(url, { headers: { 'x-api-key': sb.apiKey } });
      expect(res.status, await res.clone().text()).toBe(200);
      const body = (await res.json()) as {
        next?: string;
        offers: {
          order_hash: string;
          status?: string;
          protocol_data?: { parameters?: { offerer?: string; offer?: { startAmount: string }[] } };
        }[];
      };
      for (const o of body.offers) {
        const p = o.protocol_data?.parameters;
        if (p?.offerer?.toLowerCase() !== me || (o.status ?? 'ACTIVE') !== 'ACTIVE') continue;
        const amount = (p.offer ?? []).reduce((s, i) => s + BigInt(i.startAmount), 0n);
        out.set(o.order_hash.toLowerCase(), { collection: c, amount });
      }
      next = body.next;
    } while (next !== undefined && next !== '');
  }
  return out;
}

/** Reads the daemon's store in `dir` (read-only, beside the running writer). */
export function readStore<T>(dir: string, read: (db: Database.Database) => T): T {
  const db = new Database(join(dir, 'harpoon.db'), { readonly: true, fileMustExist: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

export async function setFaults(sb: Sandbox, body: unknown): Promise<void> {
  const res = await fetch(`${sb.apiUrl}/_sandbox/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status, await res.clone().text()).toBe(200);
}

export async function resetFaults(sb: Sandbox): Promise<void> {
  const res = await fetch(`${sb.apiUrl}/_sandbox/reset-faults`, { method: 'POST' });
  expect(res.status).toBe(200);
}
