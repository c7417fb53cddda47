import { CONFIG_FILE_ENV, ENV_OVERRIDES, OTHER_ENV, SECRET_ENV } from '../config/env.ts';
import { EXIT_CODE_HELP } from './exit.ts';
import { type Command, type FlagSpec, GLOBAL_FLAGS } from './spec.ts';

const ABOUT = `harpoon is an unattended NFT trading daemon for the OpenSea API v2. It snipes underpriced
listings, keeps collection and trait offers at the top of the book, rebalances holdings on a
schedule and mints drops - with no one at the keyboard, and without ever signing something it did
not mean to sign. Strategies only return intents; the engine checks each one against your risk
limits and decodes every transaction before it is signed. Every HTTP call goes through one
rate-limit scheduler (shared through Redis across instances). Paper mode is the default.`;

const CONFIG_SNIPPET = `  mode: paper                 # paper (default) or live
  api:
    baseUrl: https://api.opensea.io
  rateLimits:
    read: "600/h"             # optional overrides, <count>/<unit>
    cluster: { store: local } # or redis + HARPOON_REDIS_URL
  chain:
    name: ethereum
  wallet:
    keystore: ./keys/harpoon.json   # password from HARPOON_KEYSTORE_PASSWORD
  collections: [pudgypenguins]
  risk:
    maxPricePerItem: "0.05"   # ETH, always a quoted decimal string`;

function pad(text: string, width: number): string {
  return text.length >= width ? `${text}  ` : text.padEnd(width);
}

function flagLabel(f: FlagSpec): string {
  const short = f.short ? `-${f.short}, ` : '    ';
  return `${short}--${f.name}${f.valueName ? ` ${f.valueName}` : ''}`;
}

function flagLines(flags: readonly FlagSpec[]): string[] {
  return flags.map((f) => `  ${pad(flagLabel(f), 24)}${f.help} (default: ${f.defaultText})`);
}

function usageOf(c: Command): string {
  const flags = c.flags.length > 0 ? ' [flags]' : '';
  return `harpoon ${c.name}${c.argsUsage ? ` ${c.argsUsage}` : ''}${flags}`;
}

export function envLines(): string[] {
  const lines = [`  ${pad(CONFIG_FILE_ENV, 38)}config file to read when --config is not given`];
  for (const e of ENV_OVERRIDES) lines.push(`  ${pad(e.name, 38)}${pad(e.path, 30)}${e.help}`);
  for (const e of OTHER_ENV) lines.push(`  ${pad(e.name, 38)}${pad('(not in the file)', 30)}${e.help}`);
  return lines;
}

export function secretEnvLines(): string[] {
  return SECRET_ENV.map((e) => `  ${pad(e.name, 38)}${e.help}`);
}

/** `harpoon --help`: what harpoon is, every command and flag, environment, config, exit codes. */
export function renderMainHelp(commands: readonly Command[], version: string): string {
  const out: string[] = [
    `harpoon ${version} - unattended NFT trading daemon for the OpenSea API v2`,
    '',
    ABOUT,
    '',
    'Usage:',
    '  harpoon <command> [flags]',
    '  harpoon help <command>        details, flags and examples of one command',
    '',
    'Commands:',
    ...commands.map((c) => `  ${pad(c.name, 18)}${c.summary}`),
    '',
    'Global flags (accepted by every command):',
    ...flagLines(GLOBAL_FLAGS),
  ];
  for (const c of commands) {
    if (c.flags.length === 0) continue;
    out.push('', `Flags of "harpoon ${c.name}":`, ...flagLines(c.flags));
  }
  out.push(
    '',
    'Environment (overrides the config file; an empty value counts as unset):',
    ...envLines(),
    '',
    'Secrets (read only from the environment or the keystore, never from the file; never printed):',
    ...secretEnvLines(),
    '',
    'Config file (YAML or JSON by extension; unknown keys are errors; "harpoon config example" prints all keys):',
    CONFIG_SNIPPET,
    '',
    'Exit codes:',
    ...EXIT_CODE_HELP.map(([code, text]) => `  ${pad(String(code), 6)}${text}`),
    '',
    'Quick start:',
    '  npm ci && npm start            # runs "harpoon demo"',
    '  harpoon config example > harpoon.yaml && harpoon config check --config harpoon.yaml',
    '',
  );
  return out.join('\n');
}

/** Help of one command, or of a group (`config`) listing its sub-commands. */
export function renderCommandHelp(commands: readonly Command[], topic: string): string | undefined {
  const exact = commands.find((c) => c.name === topic);
  const group = commands.filter((c) => c.name.startsWith(`${topic} `));
  const selected = exact ? [exact] : group;
  if (selected.length === 0) return undefined;
  const out: string[] = [];
  if (!exact)
    out.push(`harpoon ${topic} <${group.map((c) => c.name.slice(topic.length + 1)).join('|')}>`, '');
  for (const c of selected) {
    out.push(
      `Usage: ${usageOf(c)}`,
      '',
      `  ${c.summary}`,
      '',
      ...c.description.split('\n').map((l) => `  ${l}`),
      '',
    );
    if (c.flags.length > 0) out.push('Flags:', ...flagLines(c.flags), '');
    out.push('Global flags:', ...flagLines(GLOBAL_FLAGS), '');
    if (c.examples.length > 0) out.push('Examples:', ...c.examples.map((e) => `  ${e}`), '');
  }
  out.push('Exit codes:', ...EXIT_CODE_HELP.map(([code, text]) => `  ${pad(String(code), 6)}${text}`), '');
  return out.join('\n');
}
