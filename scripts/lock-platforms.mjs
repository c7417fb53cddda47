#!/usr/bin/env node
// Completes package-lock.json with the platform-specific optional packages that the registry
// reachable here does not serve (e.g. darwin/win32 builds of biome and anvil). npm 11 refuses
// `npm ci` when a lock lacks them ("Missing: ... from lock file"), even though they would be
// skipped on this platform. Each added entry carries os/cpu/libc, so npm skips it without fetching.
// Run after `npm install` changes dependencies: `node scripts/lock-platforms.mjs`.
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const pkgs = lock.packages;

const OS = [
  'darwin',
  'win32',
  'linux',
  'android',
  'freebsd',
  'openbsd',
  'openharmony',
  'netbsd',
  'sunos',
  'aix',
];
const CPU = [
  ['arm64', 'arm64'],
  ['aarch64', 'arm64'],
  ['amd64', 'x64'],
  ['x64', 'x64'],
  ['ia32', 'ia32'],
  ['loong64', 'loong64'],
  ['ppc64', 'ppc64'],
  ['riscv64', 'riscv64'],
  ['s390x', 's390x'],
  ['arm', 'arm'],
];

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = OS.find((o) => parts.includes(o));
  const cpuEntry = CPU.find(
    ([tag]) => parts.includes(tag) || parts.some((p) => p.startsWith(tag) && tag === 'arm'),
  );
  const libc = parts.some((p) => p.startsWith('musl') || p === 'musleabihf')
    ? 'musl'
    : parts.includes('gnu') || parts.includes('gnueabihf')
      ? 'glibc'
      : undefined;
  return { os, cpu: cpuEntry?.[1], libc };
}

let added = 0;
for (const [path, meta] of Object.entries(pkgs)) {
  if (!meta.optionalDependencies) continue;
  const base = path === '' ? 'node_modules/' : `${path}/node_modules/`;
  for (const [dep, range] of Object.entries(meta.optionalDependencies)) {
    if (pkgs[`${base}${dep}`] || pkgs[`node_modules/${dep}`]) continue;
    const { os, cpu, libc } = platformOf(dep);
    if (!os || !cpu) continue; // not a platform package: leave it to npm
    if (os === process.platform && cpu === process.arch && libc !== 'musl') continue; // ours must be real
    pkgs[`node_modules/${dep}`] = {
      version: range.replace(/^[\^~=]/, ''),
      ...(meta.dev ? { dev: true } : {}),
      optional: true,
      os: [os],
      cpu: [cpu],
      ...(libc ? { libc: [libc] } : {}),
    };
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(pkgs).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)),
);
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
process.stdout.write(`lock-platforms: added ${added} platform entries\n`);
