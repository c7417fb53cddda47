// `harpoon mcp`: the daemon's agent tools over stdio, for agents that start a tool server as a
// child process. It relays every request to the running daemon's `/mcp` (Streamable HTTP, behind
// the control token), so the tools, their checks and `mcp.allowControl` are the daemon's own:
// nothing here decides anything.
import type { Readable, Writable } from 'node:stream';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { BaseError } from '../errors/index.ts';

export interface StdioBridgeOptions {
  /** The daemon's control endpoint (`http://127.0.0.1:8787`). */
  readonly url: string;
  readonly token: string;
  readonly version: string;
  /** Default process.stdin / process.stdout. */
  readonly stdin?: Readable;
  readonly stdout?: Writable;
  /** Ends the bridge. */
  readonly signal?: AbortSignal;
}

export class DaemonUnreachableError extends BaseError {
  constructor(url: string, cause: unknown) {
    super(
      'daemon_unreachable',
      `no daemon answers at ${url}/mcp (is "harpoon run" running with this config?)`,
      {
        cause,
      },
    );
  }
}

export class DaemonRefusedError extends BaseError {
  constructor(url: string, cause: unknown) {
    super(
      'daemon_refused',
      `the daemon at ${url}/mcp refused the control token (HTTP 401): give that daemon's token (HARPOON_CONTROL_TOKEN, or its config)`,
      { cause },
    );
  }
}

const lostText = (url: string, e: unknown) =>
  `harpoon: the daemon at ${url} did not answer (${e instanceof Error ? e.message : String(e)}); is it still running?`;

/**
 * Connects to the daemon (refusing at once when it does not answer or refuses the token), then
 * serves stdio until stdin closes or `signal` fires.
 */
export async function serveStdioBridge(o: StdioBridgeOptions): Promise<void> {
  const base = o.url.replace(/\/+$/, '');
  const client = new Client({ name: 'harpoon-mcp-stdio', version: o.version });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${o.token}` } },
      }),
    );
  } catch (e) {
    // it answered, but not to this token: say so (a wrong token is not a daemon gone)
    if (e instanceof UnauthorizedError || (e instanceof StreamableHTTPError && e.code === 401))
      throw new DaemonRefusedError(base, e);
    throw new DaemonUnreachableError(base, e);
  }
  const info = client.getServerVersion();
  const instructions = client.getInstructions();
  const server = new Server(
    { name: info?.name ?? 'harpoon', version: info?.version ?? o.version },
    {
      capabilities: { tools: {}, resources: {} },
      ...(instructions !== undefined ? { instructions } : {}),
    },
  );
  // requests relayed and not answered yet: stdin's end waits for them (a client that writes its
  // requests and closes its end still gets every answer); Ctrl-C does not
  let inFlight = 0;
  let idle: (() => void) | undefined;
  const relay =
    <A, R>(f: (a: A) => Promise<R>) =>
    async (a: A): Promise<R> => {
      inFlight++;
      try {
        return await f(a);
      } finally {
        if (--inFlight === 0) idle?.();
      }
    };
  server.setRequestHandler(
    ListToolsRequestSchema,
    relay((req) => client.listTools(req.params)),
  );
  server.setRequestHandler(
    ListResourcesRequestSchema,
    relay((req) => client.listResources(req.params)),
  );
  server.setRequestHandler(
    ReadResourceRequestSchema,
    relay((req) => client.readResource(req.params)),
  );
  server.setRequestHandler(
    CallToolRequestSchema,
    relay(async (req): Promise<CallToolResult> => {
      try {
        return (await client.callTool(req.params)) as CallToolResult;
      } catch (e) {
        return { content: [{ type: 'text', text: lostText(base, e) }], isError: true };
      }
    }),
  );
  const transport = new StdioServerTransport(o.stdin, o.stdout);
  const turn = () => new Promise<void>((r) => setImmediate(r));
  const answered = async (): Promise<void> => {
    await turn(); // the last lines read have reached their handlers
    while (inFlight > 0) await new Promise<void>((r) => (idle = r));
    await turn(); // and their answers have been written
  };
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    const ended = () => void answered().then(resolve);
    o.stdin?.once('end', ended);
    if (o.stdin === undefined) process.stdin.once('end', ended);
    o.signal?.addEventListener('abort', () => resolve(), { once: true });
  });
  await server.connect(transport);
  await closed;
  await server.close();
  await client.close();
}
