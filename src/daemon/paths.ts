// The paths the daemon's control endpoint serves (control.ts), in a module of its own: the CLI
// reads them (a --url copied from a browser, …/status, is read as the daemon's base URL) without
// loading the server.

/** What the endpoint answers to GET (besides `/` and `/assets/*`, the dashboard's page). */
export const CONTROL_READS = ['health', 'status', 'metrics', 'api/snapshot', 'api/fills', 'events'] as const;

/** The daemon's switches, served as `POST /<pattern>` (the dashboard and `harpoon kill|pause|resume` use them). */
export const CONTROL_SWITCHES = [
  'kill',
  'pause',
  'resume',
  'strategies/:id/pause',
  'strategies/:id/resume',
  'orders/:hash/cancel',
] as const;
export type ControlSwitch = (typeof CONTROL_SWITCHES)[number];

/** The agent endpoint (MCP over streamable HTTP). */
export const CONTROL_MCP = 'mcp';

/**
 * Every fixed path of the endpoint (no `:name` parameter in it), longest first: the ends a URL
 * copied from one of them has after the daemon's base URL.
 */
export const CONTROL_ENDPOINTS: readonly string[] = Object.freeze(
  [...CONTROL_READS, ...CONTROL_SWITCHES.filter((s) => !s.includes(':')), CONTROL_MCP].sort(
    (a, b) => b.length - a.length,
  ),
);
