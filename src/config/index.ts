export {
  CONFIG_FILE_ENV,
  ENV_OVERRIDES,
  type EnvOverride,
  OTHER_ENV,
  SECRET_ENV,
  type SecretEnv,
} from './env.ts';
export { deepFreeze } from './freeze.ts';
export { type ConfigIssue, formatPath } from './issues.ts';
export {
  type Env,
  type LoadConfigOptions,
  loadConfig,
  type ResolveConfigOptions,
  resolveConfig,
} from './load.ts';
export { readConfigFile } from './read.ts';
export { maskUrl, sanitizeConfig, secretValues } from './sanitize.ts';
export { DEFAULT_BASE_URL, DEFAULT_REFRESH_PATH, DEFAULT_STORE_PATH, LOG_LEVELS } from './schema.ts';
export { isSecretKey } from './secrets.ts';
export { closest } from './suggest.ts';
export type * from './types.ts';
