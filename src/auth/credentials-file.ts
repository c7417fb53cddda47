// The credentials file `harpoon auth login` writes and `harpoon run` reads: the personal access
// token (value once shown by the server, its id, label, scopes and expiry) and the SIWE session
// cookies (access and the latest rotated refresh cookie). Mode 0600, written atomically (temp file
// + rename), refused when anyone but the owner may read it. Secrets stay wrapped in `Secret`.
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Secret } from '../domain/secret.ts';
import { ConfigError } from '../errors/index.ts';
import { writePrivateFile } from '../store/private-file.ts';

export interface StoredPat {
  readonly value: Secret;
  readonly id: string;
  readonly label: string;
  readonly scopes: readonly string[];
  /** Epoch ms, or null when the server gave none. */
  readonly expiresAt: number | null;
}

export interface StoredCookie {
  readonly name: string;
  readonly value: Secret;
  /** Epoch ms, or null for a session cookie. */
  readonly expiresAt: number | null;
}

export interface StoredCredentials {
  /** The wallet the PAT and session belong to (lower case). */
  readonly wallet: string;
  /** The API base URL they were obtained from. */
  readonly baseUrl: string;
  readonly pat?: StoredPat;
  readonly cookies?: readonly StoredCookie[];
}

interface FileShape {
  version: 1;
  wallet: string;
  baseUrl: string;
  pat?: { value: string; id: string; label: string; scopes: string[]; expiresAt: number | null };
  cookies?: { name: string; value: string; expiresAt: number | null }[];
}

const bad = (path: string, why: string) =>
  new ConfigError(
    `credentials file ${path}: ${why}; run \`harpoon auth login\` again (it rewrites the file)`,
    {
      code: 'credentials_file_invalid',
    },
  );

/** Reads the file; undefined when it does not exist. Refuses group/other-readable files and bad shapes. */
export function readCredentialsFile(path: string): StoredCredentials | undefined {
  if (!existsSync(path)) return undefined;
  const st = statSync(path);
  if (st.isDirectory())
    throw new ConfigError(
      `api.credentialsPath ${path} is a folder, not the credentials file: give the path of a file, e.g. ${join(path, 'credentials.json')} (harpoon auth login creates it)`,
      { code: 'credentials_path_folder' },
    );
  const mode = st.mode & 0o777;
  if ((mode & 0o077) !== 0)
    throw new ConfigError(
      `credentials file ${path} has mode ${mode.toString(8)}: others may read the token in it; run chmod 600 ${path}`,
      { code: 'credentials_file_mode' },
    );
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    throw bad(path, 'not JSON');
  }
  const f = raw as Partial<FileShape>;
  if (f === null || typeof f !== 'object' || f.version !== 1) throw bad(path, 'unknown format');
  if (typeof f.wallet !== 'string' || typeof f.baseUrl !== 'string') throw bad(path, 'no wallet or base URL');
  const out: { -readonly [K in keyof StoredCredentials]: StoredCredentials[K] } = {
    wallet: f.wallet,
    baseUrl: f.baseUrl,
  };
  if (f.pat !== undefined) {
    const p = f.pat;
    if (
      typeof p?.value !== 'string' ||
      typeof p.id !== 'string' ||
      typeof p.label !== 'string' ||
      !Array.isArray(p.scopes) ||
      !(p.expiresAt === null || typeof p.expiresAt === 'number')
    )
      throw bad(path, 'malformed personal access token entry');
    out.pat = {
      value: new Secret(p.value, 'personal access token'),
      id: p.id,
      label: p.label,
      scopes: p.scopes.map(String),
      expiresAt: p.expiresAt,
    };
  }
  if (f.cookies !== undefined) {
    if (!Array.isArray(f.cookies)) throw bad(path, 'malformed cookies');
    out.cookies = f.cookies.map((c) => {
      if (typeof c?.name !== 'string' || typeof c.value !== 'string') throw bad(path, 'malformed cookie');
      return {
        name: c.name,
        value: new Secret(c.value, `cookie ${c.name}`),
        expiresAt: typeof c.expiresAt === 'number' ? c.expiresAt : null,
      };
    });
  }
  return out;
}

/** Writes the whole file atomically with mode 0600 (the folder is created 0700 when missing). */
export function writeCredentialsFile(path: string, c: StoredCredentials): void {
  const shape: FileShape = {
    version: 1,
    wallet: c.wallet,
    baseUrl: c.baseUrl,
    ...(c.pat !== undefined
      ? {
          pat: {
            value: c.pat.value.reveal(),
            id: c.pat.id,
            label: c.pat.label,
            scopes: [...c.pat.scopes],
            expiresAt: c.pat.expiresAt,
          },
        }
      : {}),
    ...(c.cookies !== undefined
      ? { cookies: c.cookies.map((k) => ({ name: k.name, value: k.value.reveal(), expiresAt: k.expiresAt })) }
      : {}),
  };
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writePrivateFile(path, `${JSON.stringify(shape, null, 2)}\n`);
}
