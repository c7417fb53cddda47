/**
 * Shared setup of the guard's integration tests: a quiet sandbox, a small HTTP client, and the
 * guard options of a sandbox.
 */
import { createSandbox, type Sandbox } from '../../../../src/sandbox/index.ts';
import { roomyLimits } from '../../limits.ts';

export async function startSandbox(seed = 11): Promise<Sandbox> {
  return createSandbox({
    seed,
    wallets: 5,
    activity: 0,
    limits: roomyLimits(),
  });
}

export async function call(
  sb: Sandbox,
  method: string,
  path: string,
  body?: unknown,
  key: string | null = sb.apiKey,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${sb.apiUrl}${path}`, {
    method,
    headers: {
      ...(key !== null ? { 'X-API-KEY': key } : {}),
      ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}
