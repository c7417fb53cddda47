// A sweep worker thread: TypeScript through tsx (as bin/harpoon.mjs), then the worker proper.
import { register } from 'tsx/esm/api';

register();
await import('./sweep-worker.ts');
