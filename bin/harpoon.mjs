#!/usr/bin/env node
// The `harpoon` command. Runs the TypeScript sources directly through tsx (no build step);
// all behaviour lives in src/cli/main.ts, which returns the exit code.

const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 18)) {
  console.error(`harpoon: Node.js >= 20.18 is required (this is ${process.versions.node})`);
  process.exit(1);
}

/** Waits until everything written to stdout/stderr is handed to the OS, then exits. */
async function exit(code) {
  await Promise.all(
    [process.stdout, process.stderr].map(
      (stream) => new Promise((resolve) => stream.write('', () => resolve())),
    ),
  );
  process.exit(code);
}

let main;
try {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
} catch (err) {
  console.error(`harpoon: failed to start: ${err instanceof Error ? err.message : String(err)}`);
  console.error('(is the install complete? run "npm ci" in the harpoon directory)');
  await exit(1);
}
await exit(await main(process.argv.slice(2)));
