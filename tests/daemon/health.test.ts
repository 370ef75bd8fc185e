import { describe, expect, it, onTestFinished } from 'vitest';
import { startDaemon } from './helpers.ts';

describe('health', () => {
  it('answers without a token with status, version, mode and uptime', async () => {
    const d = await startDaemon();
    onTestFinished(() => d.close());
    const response = await fetch(`${d.url}/api/mcp/health`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { uptimeMs: number; timestamp: string };
    expect(body).toMatchObject({ status: 'ok', version: '0.1.0', mode: 'production' });
    expect(body.uptimeMs).toBeGreaterThanOrEqual(0);
    expect(Number.isNaN(Date.parse(body.timestamp))).toBe(false);
  });
});
