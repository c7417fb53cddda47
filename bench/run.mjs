#!/usr/bin/env node
// `npm run bench -- <name> [args...]` runs bench/<name>.ts with tsx, streaming its output.
// Every benchmark prints one JSON object as its last line.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = dirname(here);
const available = readdirSync(here)
  .filter((f) => f.endsWith('.ts') && !f.startsWith('_') && !f.endsWith('.d.ts'))
  .map((f) => f.slice(0, -3))
  .sort();

const [name, ...rest] = process.argv.slice(2);
const file = name ? join(here, `${name}.ts`) : '';
if (!name || !/^[\w-]+$/.test(name) || !existsSync(file) || !available.includes(name)) {
  console.error(
    `${name ? `unknown benchmark '${name}'` : 'no benchmark named'}; usage: npm run bench -- <name> [args]\n` +
      `available benchmarks:\n${available.map((b) => `  ${b}`).join('\n') || '  (none)'}`,
  );
  process.exit(1);
}

const child = spawn(process.execPath, ['--import', 'tsx', file, ...rest], { cwd: root, stdio: 'inherit' });
const forward = (sig) => () => child.kill(sig);
process.on('SIGINT', forward('SIGINT'));
process.on('SIGTERM', forward('SIGTERM'));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
