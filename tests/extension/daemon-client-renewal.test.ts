// @vitest-environment node
/**
 * A signed-in user's token the daemon refuses (SPEC part 5), against a real shared daemon whose backend
 * asks a real OpenID provider: the client renews the token once and sends the call again, and a second
 * refusal goes to onUnauthorized, with no third try.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DaemonClient, DaemonError } from '../../extension/app/daemon-client';
import {
  type AuthorizationServer,
  PRE_REGISTERED,
  startAuthorizationServer,
} from '../fixtures/authorization-server';
import { startUserBackend, type UserBackend } from '../fixtures/user-backend';
import { startDaemon, type TestDaemon } from '../daemon/helpers';

const FORGED = 'not-a-token-the-provider-issued';
let provider: AuthorizationServer;
let backend: UserBackend;
let daemon: TestDaemon;

beforeAll(async () => {
  provider = await startAuthorizationServer({
    resource: () => 'http://127.0.0.1/none',
    redirectUris: () => ['http://127.0.0.1/callback'],
  });
  backend = await startUserBackend(provider.provider);
  daemon = await startDaemon({ userAuth: { backendUrl: backend.url } });
});

afterAll(async () => {
  await daemon?.close();
  await backend?.close();
  await provider?.close();
});

/** A live access token of `alice`, as the provider issues it. */
async function issueToken(): Promise<string> {
  const client = await provider.provider.Client.find(PRE_REGISTERED.clientId);
  return new provider.provider.AccessToken({ accountId: 'alice', client, scope: 'openid' }).save();
}

/** A user's client (no session token) whose bearer starts as `first`; `renewTo` is what renewing gives. */
function userClient(first: string, renewTo: (() => Promise<string | null>) | null) {
  let bearer = first;
  const renewed: string[] = [];
  let unauthorized = 0;
  const client = new DaemonClient(daemon.url, '', {
    bearer: () => bearer,
    onUnauthorized: () => unauthorized++,
    ...(renewTo && {
      renewBearer: async (refused: string) => {
        renewed.push(refused);
        const next = await renewTo();
        if (next) bearer = next;
        return next !== null;
      },
    }),
  });
  return { client, renewed, unauthorized: () => unauthorized };
}

const asks = (token: string): number => backend.asked.filter((h) => h === `Bearer ${token}`).length;

describe('a refused user token', () => {
  it('is renewed once and the call is sent again with the new token', async () => {
    const fresh = await issueToken();
    const user = userClient(FORGED, async () => fresh);
    expect((await user.client.listServers()).servers).toEqual([]);
    expect(user.renewed).toEqual([FORGED]);
    expect(user.unauthorized()).toBe(0);
    expect(asks(fresh)).toBe(1);
  });

  it('goes to onUnauthorized when the renewed token is refused too, after one retry only', async () => {
    const before = asks(FORGED);
    const user = userClient(FORGED, async () => FORGED);
    const error = await user.client.listServers().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DaemonError);
    expect((error as DaemonError).status).toBe(401);
    expect(user.renewed).toEqual([FORGED]);
    expect(user.unauthorized()).toBe(1);
    expect(asks(FORGED) - before).toBe(2);
  });

  it('is not sent again when it cannot be renewed', async () => {
    const before = asks(FORGED);
    const user = userClient(FORGED, async () => null);
    await expect(user.client.listServers()).rejects.toMatchObject({ status: 401 });
    expect(user.renewed).toEqual([FORGED]);
    expect(user.unauthorized()).toBe(1);
    expect(asks(FORGED) - before).toBe(1);
  });

  it('is never renewed for a pairing by session token', async () => {
    const paired = new DaemonClient(daemon.url, 'not-the-session-token', {
      renewBearer: async () => {
        throw new Error('a session token has nothing to renew');
      },
    });
    await expect(paired.listServers()).rejects.toMatchObject({ status: 401 });
  });
});
