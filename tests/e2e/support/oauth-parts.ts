/**
 * The real parts of an OAuth test in Chromium: the test extension, a daemon, and `oidc-provider` as the
 * authorization server on loopback in front of a fixture MCP server that takes only its tokens.
 */
import { afterAll, beforeAll } from 'vitest';
import type { TestDaemon } from '../../daemon/helpers.ts';
import type { AuthorizationServer } from '../../fixtures/authorization-server.ts';
import { type ProtectedServer, startProtectedPair } from '../../fixtures/oauth-protected-server.ts';
import { type ExtensionBrowser, launchWithTestExtension } from './browser.ts';
import { startDaemonForExtension } from './daemon.ts';

export interface OAuthParts {
  ext: ExtensionBrowser;
  daemon: TestDaemon;
  as: AuthorizationServer;
  mcp: ProtectedServer;
}

/** Starts the parts before the file's tests and closes them after; its fields are set once they run. */
export function useOAuthParts(): OAuthParts {
  const parts = {} as OAuthParts;
  beforeAll(async () => {
    parts.ext = await launchWithTestExtension();
    parts.daemon = await startDaemonForExtension();
    Object.assign(parts, await startProtectedPair(() => parts.daemon.url));
  });
  afterAll(async () => {
    await parts.ext?.browser.close();
    await parts.daemon?.close();
    await parts.mcp?.close();
    await parts.as?.close();
  });
  return parts;
}

/** The kinds of auth debugger steps, in order. */
export const stepKinds = (steps: Array<{ kind: string }>): string[] => steps.map((step) => step.kind);
