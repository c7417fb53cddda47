// `harpoon auth login | tokens | rotate <id> | revoke <id>`: the wallet credentials of the daemon.
// login signs in with the wallet's key (SIWE), creates a personal access token (PAT) with the
// smallest scope set the configured strategies need and keeps it with the session cookies in the
// credentials file (0600); the others manage PATs with the stored session, refreshing it once on a
// 401 and saving the rotated refresh cookie. No value (PAT, cookie) is ever printed or logged,
// except the one line `login --print` / `rotate --print` exist for.
import { resolve } from 'node:path';
import { createApiClient } from '../../api/client.ts';
import { Credentials } from '../../api/credentials.ts';
import { httpErrorInfo } from '../../api/errors.ts';
import { createTransport } from '../../api/transport.ts';
import type { PatCreated, PatInfo, ScopeInfo } from '../../api/types.ts';
import {
  readCredentialsFile,
  type StoredCredentials,
  type StoredPat,
  writeCredentialsFile,
} from '../../auth/credentials-file.ts';
import { parseScopeList, requiredScopes, unknownScopes } from '../../auth/scopes.ts';
import { cookiesOfJar, restoreCookies, signInWithWallet, withSession } from '../../auth/session.ts';
import { loadSigner, signerFromPrivateKey } from '../../chain/load-signer.ts';
import type { LocalSigner } from '../../chain/signer.ts';
import { loadConfig } from '../../config/load.ts';
import type { Config, WalletConfig } from '../../config/types.ts';
import { Secret } from '../../domain/secret.ts';
import { ConfigError, FatalError } from '../../errors/index.ts';
import { createScheduler } from '../../ratelimit/scheduler.ts';
import { ExitCode, UsageError } from '../exit.ts';
import { CONFIG_FLAG, DAYS_FLAG, LABEL_FLAG, numberFlag, SCOPES_FLAG, textFlag } from '../flags.ts';
import { commandLogger } from '../log.ts';
import type { CommandContext } from '../spec.ts';

export const DEFAULT_PAT_LABEL = 'harpoon';
export const DEFAULT_PAT_DAYS = 90;

interface Loaded {
  readonly config: Config;
  /** Absolute path of the credentials file. */
  readonly path: string;
  /** The config file read, if any (for the commands a message suggests). */
  readonly file?: string;
}

function load(ctx: CommandContext, command: string): Loaded {
  const file = textFlag(ctx.flags, CONFIG_FLAG, command);
  const loaded = loadConfig({ ...(file !== undefined ? { file } : {}), env: ctx.io.env, cwd: ctx.io.cwd });
  for (const warning of loaded.warnings) ctx.io.stderr(`harpoon: warning: ${warning}\n`);
  return {
    config: loaded.config,
    path: resolve(ctx.io.cwd, loaded.config.api.credentialsPath),
    ...(loaded.file !== undefined ? { file: loaded.file } : {}),
  };
}

/** The wallet's signer, from the config's wallet section (the key never leaves it). */
async function walletSigner(w: WalletConfig): Promise<LocalSigner> {
  if (w.source === 'none') {
    throw new ConfigError(
      'harpoon auth login signs in with the wallet key, and none is configured: set HARPOON_PRIVATE_KEY, or wallet.keystore (+ HARPOON_KEYSTORE_PASSWORD)',
      { code: 'wallet_missing' },
    );
  }
  const signer =
    w.source === 'env'
      ? signerFromPrivateKey(w.privateKey, `$${w.privateKeyEnv}`)
      : await loadSigner({
          source: { kind: 'keystore', path: w.keystorePath, passwordEnv: w.passwordEnv },
          env: { [w.passwordEnv]: w.password.reveal() },
        });
  if (w.address !== undefined && w.address.toLowerCase() !== signer.address.toLowerCase()) {
    throw new FatalError(
      'wallet_mismatch',
      `the wallet key is for ${signer.address}, but wallet.address says ${w.address}: fix the key or the address`,
    );
  }
  return signer;
}

/**
 * One API client for the auth endpoints, with its own cookie jar; logs (scrubbed) go to stderr in
 * human lines beside the command's own (log.pretty: false, JSON lines).
 */
function authClient(ctx: CommandContext, config: Config, extraSecrets: () => readonly string[]) {
  const credentials = new Credentials();
  // the command says what it does itself: the log shows errors, or everything with --verbose or
  // log.level debug/trace (HARPOON_LOG_LEVEL)
  const level = ctx.verbose
    ? 'debug'
    : config.log.level === 'debug' || config.log.level === 'trace'
      ? config.log.level
      : 'error';
  const logger = commandLogger(ctx.io, {
    level,
    ...(config.log.pretty !== undefined ? { pretty: config.log.pretty } : {}),
    prettyByDefault: true,
    verbose: ctx.verbose,
    scrub: () => [...credentials.secretValues(), ...extraSecrets()],
  });
  const scheduler = createScheduler({ logger, unrefTimers: true });
  const transport = createTransport({
    baseUrl: config.api.baseUrl,
    scheduler,
    credentials,
    timeoutMs: config.api.timeoutMs,
    logger,
    // a command line answers quickly: one retry of an unanswered idempotent call, then the error
    retry: { maxAttempts: 2, backoffBaseMs: 250, max429Waits: 1, maxRateLimitWaitMs: 10_000 },
  });
  return {
    api: createApiClient(transport),
    jar: credentials.cookies,
    async close() {
      await transport.close();
      await scheduler.stop();
    },
  };
}

/**
 * An HTTP refusal of an auth endpoint (400 invalid signature, 401, 403, 404 unknown token) is
 * "auth refused" (exit 3) with the server's words; anything else passes through.
 */
function refusal(e: unknown, what: string): unknown {
  const info = httpErrorInfo(e);
  if (info === undefined || info.status < 400 || info.status >= 500 || info.status === 429) return e;
  const why = info.reasons.length > 0 ? info.reasons.join('; ') : `HTTP ${info.status}`;
  const hint = info.status === 404 ? ' ("harpoon auth tokens" lists the ids)' : '';
  return new FatalError('auth_refused', `${what}: the server refused (${info.status}): ${why}${hint}`, {
    details: { status: info.status },
  });
}

async function attempt<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    throw refusal(e, what);
  }
}

function storedPatOf(created: PatCreated, fallback: { label: string; scopes: readonly string[] }): StoredPat {
  return {
    value: new Secret(created.token, 'personal access token'),
    id: created.id,
    label: typeof created['label'] === 'string' ? created['label'] : fallback.label,
    scopes: Array.isArray(created.scopes) ? created.scopes.map(String) : [...fallback.scopes],
    expiresAt: dateMs(created['expiresAt'] ?? created['expires_at']),
  };
}

function dateMs(v: unknown): number | null {
  if (typeof v !== 'string' && typeof v !== 'number') return null;
  const t = typeof v === 'number' ? (v < 1e12 ? v * 1000 : v) : Date.parse(v);
  return Number.isFinite(t) ? t : null;
}

const day = (ms: number | null): string => (ms === null ? 'never (not given)' : new Date(ms).toISOString());

/** The scopes to ask for: --scopes (checked against the server's list), else the configured strategies' need. */
function chooseScopes(ctx: CommandContext, config: Config, registry: readonly ScopeInfo[]): string[] {
  const given = textFlag(ctx.flags, SCOPES_FLAG, 'auth login');
  const valid = registry.map((r) => r.name);
  if (given !== undefined) {
    const scopes = parseScopeList(given);
    const unknown = unknownScopes(scopes, registry);
    if (unknown.length > 0) {
      throw new UsageError(
        `--scopes: unknown scope${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}`,
        `valid scopes (GET /api/v2/auth/scopes): ${valid.join(', ')}`,
      );
    }
    ctx.io.stderr(`scopes (from --scopes): ${scopes.join(', ')}\n`);
    return scopes;
  }
  const need = requiredScopes(config.strategies, registry);
  for (const endpoint of need.uncovered) {
    ctx.io.stderr(
      `harpoon: warning: no scope of the server names ${endpoint}; the daemon may be refused there\n`,
    );
  }
  if (need.scopes.length === 0) {
    throw new UsageError(
      config.strategies.length === 0
        ? 'no strategy is configured, so no scope is needed: there is no token to create'
        : `the configured strategies (${config.strategies.map((s) => s.id).join(', ')}) call no wallet-scoped endpoint (buying and swapping need the API key only): there is no token to create`,
      `to create one anyway, name its scopes: harpoon auth login --scopes ${valid[0] ?? 'write:orders'}; valid scopes: ${valid.join(', ')}`,
    );
  }
  ctx.io.stderr('scopes (the smallest set the configured strategies need):\n');
  for (const n of need.needs) {
    ctx.io.stderr(`  ${n.scope.padEnd(18)} for ${n.strategies.join(', ')} (${n.endpoints.join(', ')})\n`);
  }
  if (need.assumed.length > 0) {
    ctx.io.stderr(
      `  (strategies ${need.assumed.join(', ')} are not built-in: every intent is assumed; narrow with --scopes)\n`,
    );
  }
  return [...need.scopes];
}

/** `harpoon auth login`: see the command's description in commands.ts. */
export async function runAuthLogin(ctx: CommandContext): Promise<number> {
  const { config, path } = load(ctx, 'auth login');
  const label = textFlag(ctx.flags, LABEL_FLAG, 'auth login') ?? DEFAULT_PAT_LABEL;
  const days = numberFlag(ctx.flags, DAYS_FLAG, DEFAULT_PAT_DAYS, 'auth login');
  const print = ctx.flags.print === true;
  const chainId = config.chain.chainId;
  if (chainId === undefined) {
    throw new ConfigError(
      `chain.name ${config.chain.name} is not an EVM chain: sign-in needs an EVM chain id`,
      {
        code: 'chain_not_evm',
      },
    );
  }
  // read first: a file others may read is refused before anything is created
  const before = readCredentialsFile(path);
  const signer = await walletSigner(config.wallet);
  let created: StoredPat | undefined;
  const client = authClient(ctx, config, () => (created ? [created.value.reveal()] : []));
  try {
    const registry = (await client.api.auth.scopes()).scopes;
    const scopes = chooseScopes(ctx, config, registry);
    await attempt('sign-in (SIWE)', () =>
      signInWithWallet(client.api.auth, signer, { baseUrl: config.api.baseUrl, chainId, nowMs: Date.now() }),
    );
    ctx.io.stderr(`signed in as ${signer.address} at ${config.api.baseUrl}\n`);
    const pat = await attempt('creating the personal access token', () =>
      client.api.auth.createToken({ label, scopes, expiresInDays: days }),
    );
    created = storedPatOf(pat, { label, scopes });
    const wallet = signer.address.toLowerCase();
    // --print keeps a PAT stored earlier for this wallet and API (HARPOON_PAT wins over it anyway)
    const kept = before?.wallet === wallet && before.baseUrl === config.api.baseUrl ? before.pat : undefined;
    const stored: StoredCredentials = {
      wallet,
      baseUrl: config.api.baseUrl,
      ...(print ? (kept !== undefined ? { pat: kept } : {}) : { pat: created }),
      cookies: cookiesOfJar(client.jar),
    };
    writeCredentialsFile(path, stored);
    const summary = `personal access token ${created.id} "${created.label}": scopes ${created.scopes.join(', ')}, expires ${day(created.expiresAt)}`;
    if (print) {
      ctx.io.stderr(`created ${summary}\n`);
      ctx.io.stderr(`saved the session cookies (not the token) to ${path} (mode 0600)\n`);
      ctx.io.stderr(
        'the token is printed once on stdout; the server never shows it again: export HARPOON_PAT=<it>\n',
      );
      ctx.io.stdout(`${created.value.reveal()}\n`);
    } else {
      ctx.io.stdout(`created ${summary}\n`);
      ctx.io.stdout(`saved it and the session cookies to ${path} (mode 0600)\n`);
      ctx.io.stdout(
        '"harpoon run" exchanges it for a wallet JWT by itself (HARPOON_PAT, when set, wins over the file)\n',
      );
    }
    return ExitCode.ok;
  } finally {
    await client.close();
  }
}

/**
 * The stored session for the configured API. No credentials file is a ConfigError (exit 2) naming
 * it and the command that creates it; a file without a session, or one for another API, is a
 * FatalError that says to sign in again.
 */
function storedSession({ path, config, file }: Loaded): StoredCredentials {
  const stored = readCredentialsFile(path);
  if (stored === undefined)
    throw new ConfigError(
      `no credentials file at ${path} (api.credentialsPath): sign in first with \`harpoon auth login${file !== undefined ? ` --config ${file}` : ''}\`, which creates it`,
      { code: 'credentials_file_missing' },
    );
  if ((stored.cookies ?? []).length === 0) {
    throw new FatalError('session_missing', `no SIWE session in ${path}: run \`harpoon auth login\` first`);
  }
  if (stored.baseUrl !== config.api.baseUrl) {
    throw new FatalError(
      'session_other_api',
      `the session in ${path} is for ${stored.baseUrl}, not ${config.api.baseUrl}: run \`harpoon auth login\` for this API`,
    );
  }
  return stored;
}

interface SessionRun {
  readonly config: Config;
  readonly path: string;
  readonly client: ReturnType<typeof authClient>;
  /** The stored credentials as they are now (`save` replaces them). */
  current(): StoredCredentials;
  /** Writes the file: the given changes and the jar's current cookies. */
  save(change?: Partial<Pick<StoredCredentials, 'pat'>> & { readonly dropPat?: boolean }): void;
  /** A session call with one refresh on a 401 (the rotated refresh cookie is saved at once). */
  call<T>(what: string, call: () => Promise<T>): Promise<T>;
}

async function withStoredSession(
  ctx: CommandContext,
  command: string,
  body: (s: SessionRun) => Promise<number>,
  extraSecrets: () => readonly string[] = () => [],
): Promise<number> {
  const loaded = load(ctx, command);
  const { config, path } = loaded;
  let stored = storedSession(loaded);
  const client = authClient(ctx, config, () => [
    ...(stored.pat ? [stored.pat.value.reveal()] : []),
    ...extraSecrets(),
  ]);
  restoreCookies(client.jar, stored.cookies ?? []);
  const save: SessionRun['save'] = (change = {}) => {
    const { pat: _old, ...rest } = stored;
    const pat = change.dropPat ? undefined : (change.pat ?? stored.pat);
    stored = { ...rest, ...(pat !== undefined ? { pat } : {}), cookies: cookiesOfJar(client.jar) };
    writeCredentialsFile(path, stored);
  };
  const run: SessionRun = {
    config,
    path,
    client,
    current: () => stored,
    save,
    call: (what, call) =>
      attempt(what, () =>
        withSession(client.jar, client.api.auth, call, () => {
          save();
          ctx.io.stderr(`refreshed the SIWE session; saved the new cookies to ${path}\n`);
        }),
      ),
  };
  try {
    return await body(run);
  } finally {
    await client.close();
  }
}

function fieldText(t: PatInfo, ...keys: string[]): string | undefined {
  for (const k of keys) {
    const v = t[k];
    if (typeof v === 'string' && v !== '') return v;
    if (typeof v === 'number') return new Date(v < 1e12 ? v * 1000 : v).toISOString();
  }
  return undefined;
}

/** One line per PAT (never a value): id, label, scopes, expiry, last use; the stored one marked. */
export function renderTokens(tokens: readonly PatInfo[], storedId: string | undefined): string {
  if (tokens.length === 0) return 'no personal access tokens (create one: harpoon auth login)\n';
  const lines = tokens.map((t) => {
    const parts = [
      `${t.id}${t.id === storedId ? ' (stored)' : ''}`,
      `label "${t.label ?? ''}"`,
      `scopes ${(t.scopes ?? []).join(', ') || '(none)'}`,
      `expires ${fieldText(t, 'expiresAt', 'expires_at') ?? '(not given)'}`,
    ];
    const used = fieldText(t, 'lastUsedAt', 'last_used_at');
    if (used !== undefined) parts.push(`last used ${used}`);
    else if ('lastUsedAt' in t || 'last_used_at' in t) parts.push('never used');
    return `  ${parts.join('  ')}`;
  });
  return `personal access tokens (${tokens.length}):\n${lines.join('\n')}\n`;
}

/** `harpoon auth tokens`. */
export async function runAuthTokens(ctx: CommandContext): Promise<number> {
  return withStoredSession(ctx, 'auth tokens', async (s) => {
    const tokens = await s.call('listing the personal access tokens', () => s.client.api.auth.listTokens());
    ctx.io.stdout(renderTokens(tokens, s.current().pat?.id));
    const stored = s.current().pat;
    if (stored !== undefined && !tokens.some((t) => t.id === stored.id)) {
      ctx.io.stderr(
        `harpoon: warning: the stored token ${stored.id} is not among them (revoked or expired): run \`harpoon auth login\`\n`,
      );
    }
    return ExitCode.ok;
  });
}

function tokenId(ctx: CommandContext, command: string): string {
  const [id, extra] = ctx.args;
  if (id === undefined || extra !== undefined || !/^[A-Za-z0-9_-]{1,128}$/.test(id)) {
    throw new UsageError(
      id === undefined
        ? `"harpoon ${command}" needs the id of a token`
        : extra !== undefined
          ? `"harpoon ${command}" takes one token id, got ${ctx.args.length}`
          : `${JSON.stringify(id.slice(0, 80))} is not a token id`,
      `usage: harpoon ${command} <id>; "harpoon auth tokens" lists the ids`,
    );
  }
  return id;
}

/** `harpoon auth rotate <id>`. */
export async function runAuthRotate(ctx: CommandContext): Promise<number> {
  const id = tokenId(ctx, 'auth rotate');
  const print = ctx.flags.print === true;
  let fresh: Secret | undefined;
  return withStoredSession(
    ctx,
    'auth rotate',
    async (s) => {
      const isStored = s.current().pat?.id === id;
      if (!isStored && !print) {
        throw new UsageError(
          `token ${id} is not the stored one: its new value would be shown once and lost`,
          `add --print to print the new value once on stdout (e.g. for HARPOON_PAT), or rotate the stored token ${s.current().pat?.id ?? '(none)'}`,
        );
      }
      const rotated = await s.call(`rotating token ${id}`, () => s.client.api.auth.rotateToken(id));
      const old = s.current().pat;
      const pat = storedPatOf(rotated, { label: old?.label ?? '', scopes: old?.scopes ?? [] });
      fresh = pat.value;
      if (print) {
        // the stored value (if this was it) no longer exchanges: it goes from the file
        s.save(isStored ? { dropPat: true } : {});
        ctx.io.stderr(
          `rotated token ${id}; its old value no longer exchanges (JWTs already issued stay valid until they expire)\n`,
        );
        if (isStored) ctx.io.stderr(`removed the old value from ${s.path}\n`);
        ctx.io.stderr('the new value is printed once on stdout: export HARPOON_PAT=<it>\n');
        ctx.io.stdout(`${pat.value.reveal()}\n`);
      } else {
        s.save({ pat });
        ctx.io.stdout(
          `rotated token ${id}; stored the new value in ${s.path}; expires ${day(pat.expiresAt)}\n` +
            'the old value no longer exchanges (JWTs already issued stay valid until they expire); restart "harpoon run" to use the new one\n',
        );
      }
      return ExitCode.ok;
    },
    () => (fresh ? [fresh.reveal()] : []),
  );
}

/** `harpoon auth revoke <id>`. */
export async function runAuthRevoke(ctx: CommandContext): Promise<number> {
  const id = tokenId(ctx, 'auth revoke');
  return withStoredSession(ctx, 'auth revoke', async (s) => {
    await s.call(`revoking token ${id}`, () => s.client.api.auth.revokeToken(id));
    const wasStored = s.current().pat?.id === id;
    s.save(wasStored ? { dropPat: true } : {});
    ctx.io.stdout(
      `revoked token ${id}: it no longer exchanges (JWTs already issued stay valid until they expire)\n` +
        (wasStored ? `removed it from ${s.path}; run \`harpoon auth login\` to create another\n` : ''),
    );
    return ExitCode.ok;
  });
}
