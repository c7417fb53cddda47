import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeToon } from '../../../../src/api/toon.ts';
import { EventLog } from '../../../../src/sandbox/events/log.ts';
import { SANDBOX_TOOLS } from '../../../../src/sandbox/mcp/index.ts';
import { createSandboxServer, type SandboxServer } from '../../../../src/sandbox/server/index.ts';

/**
 * The sandbox's agent-protocol server on a server without a chain (fast): the handshake and the
 * tool list need no credentials, data tools answer 401 as tool errors without a key, MCP and REST
 * calls of one key draw on one bucket (the shared count and the 429 both ways), TOON on request,
 * the scopes' `mcpTools` are the wallet tools of the list, and the transport's own refusals.
 */

const HOUR = 3_600_000;
let server: SandboxServer | undefined;
const clients: Client[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  await server?.close();
  server = undefined;
});

async function start(read = 100): Promise<string> {
  server = createSandboxServer({
    events: new EventLog(),
    keys: [{ apiKey: 'k', account: 'acct' }],
    limits: {
      read: { capacity: read, windowMs: HOUR },
      write: { capacity: 100, windowMs: HOUR },
      fulfillment: { capacity: 5, windowMs: HOUR },
    },
  });
  return server.listen();
}

async function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'harpoon-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }),
  );
  clients.push(client);
  return client;
}

const textOf = (r: unknown): string => ((r as CallToolResult).content[0] as { text: string }).text;
const jsonOf = (r: unknown): Record<string, unknown> => JSON.parse(textOf(r)) as Record<string, unknown>;

describe('sandbox MCP server: rule 8 without credentials', () => {
  it('initializes and lists every tool of the table without credentials', async () => {
    const url = await start();
    const client = await connect(url);
    expect(client.getServerVersion()?.name).toBe('harpoon-sandbox');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(SANDBOX_TOOLS.map((t) => t.name).sort());
    const key = tools.find((t) => t.name === 'create_api_key');
    expect(key?.description).toContain('No credentials needed');
    expect(tools.find((t) => t.name === 'get_collection')?.inputSchema.required).toEqual(['slug']);
  });

  it('creates an instant key without credentials; that key works at once on a data tool', async () => {
    const url = await start();
    const anon = await connect(url);
    const made = await anon.callTool({ name: 'create_api_key', arguments: {} });
    expect(made.isError).toBeFalsy();
    const key = jsonOf(made);
    expect(key).toMatchObject({ api_key: expect.any(String), rate_limits: expect.any(Object) });
    const keyed = await connect(url, { 'X-API-KEY': key['api_key'] as string });
    const chains = await keyed.callTool({ name: 'get_chains', arguments: {} });
    expect(chains.isError).toBeFalsy();
    expect(jsonOf(chains)).toEqual({ chains: [expect.objectContaining({ chain: 'ethereum' })] });
  });

  it('a data tool without a key, or with an unknown one, is a 401 tool error (no quota taken)', async () => {
    const url = await start();
    for (const headers of [{}, { 'X-API-KEY': 'nope' }]) {
      const c = await connect(url, headers);
      const r = await c.callTool({ name: 'get_chains', arguments: {} });
      expect(r.isError).toBe(true);
      expect(jsonOf(r)).toEqual({ status: 401, errors: ['Invalid API key'] });
    }
    expect(server?.stats().unauthorized).toBe(2);
    expect(server?.stats().requests.read.requests).toBe(0);
  });

  it('a wallet tool with the key but no JWT is 401; a garbage JWT is 401', async () => {
    const url = await start();
    const c = await connect(url, { 'X-API-KEY': 'k' });
    const r = await c.callTool({ name: 'check_drop_eligibility', arguments: { slug: 'x' } });
    expect(r.isError).toBe(true);
    expect(jsonOf(r)['status']).toBe(401);
    expect(String((jsonOf(r)['errors'] as string[])[0])).toContain('read:eligibility');
    const g = await connect(url, { 'X-API-KEY': 'k', Authorization: 'Bearer not.a.jwt' });
    const r2 = await g.callTool({
      name: 'cancel_orders',
      arguments: { orders: [{ order_hash: `0x${'1'.repeat(64)}`, protocol_address: `0x${'2'.repeat(40)}` }] },
    });
    expect(jsonOf(r2)).toEqual({ status: 401, errors: ['Invalid wallet JWT'] });
  });

  it('invalid arguments are a tool error naming the argument, and nothing is requested', async () => {
    const url = await start();
    const c = await connect(url, { 'X-API-KEY': 'k' });
    const before = server?.limiter.peek('acct', 'read').remaining;
    const r = await c.callTool({ name: 'get_nft', arguments: { address: 'nope', identifier: '1' } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain('address');
    expect(server?.limiter.peek('acct', 'read').remaining).toBe(before);
  });
});

describe('sandbox MCP server: one bucket with REST', () => {
  it('REST and MCP calls of one key count down one bucket; an empty bucket refuses both (429)', async () => {
    const url = await start(4);
    const rest = async () => {
      const r = await fetch(`${url}/api/v2/chains`, { headers: { 'X-API-KEY': 'k' } });
      return { status: r.status, remaining: r.headers.get('x-ratelimit-remaining') };
    };
    const c = await connect(url, { 'X-API-KEY': 'k' });
    expect(await rest()).toEqual({ status: 200, remaining: '3' });
    expect((await c.callTool({ name: 'get_chains', arguments: {} })).isError).toBeFalsy();
    expect(await rest()).toEqual({ status: 200, remaining: '1' });
    expect((await c.callTool({ name: 'get_chains', arguments: {} })).isError).toBeFalsy();
    expect((await rest()).status).toBe(429);
    // the MCP answer carries the bucket's headers too, as a REST answer does
    const raw = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'X-API-KEY': 'k',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'get_chains', arguments: {} },
      }),
    });
    expect(raw.headers.get('x-ratelimit-limit')).toBe('4');
    expect(raw.headers.get('x-ratelimit-remaining')).toBe('0');
    const refused = await c.callTool({ name: 'get_chains', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(jsonOf(refused)).toMatchObject({ status: 429, retryAfterSeconds: expect.any(Number) });
    expect(String((jsonOf(refused)['errors'] as string[])[0])).toMatch(/^Request was throttled/);
  });
});

describe('sandbox MCP server: encodings and discovery', () => {
  it('format toon answers the same value TOON-encoded; an Accept preferring text/markdown too', async () => {
    const url = await start();
    const c = await connect(url, { 'X-API-KEY': 'k' });
    const json = jsonOf(await c.callTool({ name: 'get_chains', arguments: {} }));
    const toon = textOf(await c.callTool({ name: 'get_chains', arguments: { format: 'toon' } }));
    expect(toon.trimStart().startsWith('{')).toBe(false);
    expect(decodeToon(toon)).toEqual(json);
    const err = textOf(
      await (await connect(url)).callTool({ name: 'get_chains', arguments: { format: 'toon' } }),
    );
    expect(decodeToon(err)).toEqual({ status: 401, errors: ['Invalid API key'] });
    // a raw client whose Accept prefers text/markdown (it still accepts JSON and event streams)
    const r = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'text/markdown, application/json;q=0.9, text/event-stream;q=0.9',
        'X-API-KEY': 'k',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'get_chains', arguments: {} },
      }),
    });
    expect(r.status).toBe(200);
    const answer = (await r.json()) as { result: CallToolResult };
    expect(decodeToon(textOf(answer.result))).toEqual(json);
  });

  it('GET /api/v2/auth/scopes lists as mcpTools exactly the wallet tools of tools/list, by scope', async () => {
    const url = await start();
    const scopes = (await (await fetch(`${url}/api/v2/auth/scopes`)).json()) as {
      scopes: { name: string; mcpTools: string[] }[];
    };
    const { tools } = await (await connect(url)).listTools();
    const listed = new Set(tools.map((t) => t.name));
    const fromScopes = scopes.scopes.flatMap((s) => s.mcpTools);
    expect(fromScopes.sort()).toEqual(['cancel_orders', 'check_drop_eligibility', 'manage_collections']);
    for (const name of fromScopes) expect(listed.has(name)).toBe(true);
    for (const t of tools.filter((x) => x.description?.includes('Authorization: Bearer'))) {
      const scope = scopes.scopes.find((s) => s.mcpTools.includes(t.name));
      expect(t.description).toContain(scope?.name);
    }
  });

  it('GET on the MCP path is 405 (stateless: no server stream); a body that is not JSON is a parse error', async () => {
    const url = await start();
    const g = await fetch(`${url}/mcp`, { headers: { Accept: 'text/event-stream' } });
    expect(g.status).toBe(405);
    expect(g.headers.get('allow')).toBe('POST');
    const p = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: '{nope',
    });
    expect(p.status).toBe(400);
    expect(((await p.json()) as { error: { code: number } }).error.code).toBe(-32700);
  });
});
