import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Root of the harpoon package (where package.json, config/ and bin/ live). */
export const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

let cachedVersion: string | undefined;

export function packageVersion(): string {
  if (cachedVersion === undefined) {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: unknown;
    };
    cachedVersion = typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  }
  return cachedVersion;
}

/** The commented example config shipped in `config/example.yaml`. */
export function exampleConfigText(): string {
  return readFileSync(new URL('../../config/example.yaml', import.meta.url), 'utf8');
}
