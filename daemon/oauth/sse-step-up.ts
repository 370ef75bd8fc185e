/**
 * Step-up authorization (SEP-2350) on the legacy HTTP+SSE transport. The SDK's Streamable HTTP transport
 * answers a 403 `insufficient_scope` by authorizing again for the scope the server names and sending the
 * message once more; its SSE transport only reports the 403, so a tool that needs more scope could never
 * be called there. This fetch does for a message POST what the Streamable HTTP transport does, with the
 * same bound (one step-up per message) and the same errors, so the daemon explains both alike.
 */
import type * as Client from '@modelcontextprotocol/client';
import type { FetchLike, OAuthClientProvider } from '@modelcontextprotocol/client';

type Sdk = typeof Client;

/** The challenge of a 403 answer when it is `insufficient_scope`, else undefined. */
function insufficientScope(
  sdk: Sdk,
  response: Response,
): { scope?: string; resourceMetadataUrl?: URL } | undefined {
  if (response.status !== 403) return undefined;
  const { error, scope, resourceMetadataUrl } = sdk.extractWWWAuthenticateParams(response);
  return error === 'insufficient_scope' ? { scope, resourceMetadataUrl } : undefined;
}

/** `init` with the Authorization header of the grant's new access token. */
function withToken(init: RequestInit | undefined, accessToken: string | undefined): RequestInit {
  const headers = new Headers(init?.headers);
  if (accessToken) headers.set('Authorization', `Bearer ${accessToken}`);
  return { ...init, headers };
}

/**
 * Wraps the fetch of an SSE server's transport: a POST refused with 403 `insufficient_scope` asks the
 * grant for the union of the scope it holds and the scope named (a refresh when that adds nothing, a
 * person's sign-in when it does) and is sent once more with the new token. A sign-in that needs a person
 * ends the message with UnauthorizedError (the provider then holds the authorization URL); a second
 * `insufficient_scope` with ClientHttpForbidden, as the Streamable HTTP transport ends it.
 */
export function sseStepUpFetch(
  sdk: Sdk,
  provider: () => OAuthClientProvider | undefined,
  serverUrl: string,
  fetchFn: FetchLike,
): FetchLike {
  return async (input, init) => {
    const response = await fetchFn(input, init);
    const challenge = init?.method === 'POST' ? insufficientScope(sdk, response) : undefined;
    const grant = provider();
    if (!challenge || !grant) return response;
    await response.text().catch(() => '');
    const held = (await grant.tokens())?.scope;
    const scope = sdk.computeScopeUnion(held, challenge.scope);
    const result = await sdk.auth(grant, {
      serverUrl,
      resourceMetadataUrl: challenge.resourceMetadataUrl,
      scope,
      forceReauthorization: sdk.isStrictScopeSuperset(scope, held),
      fetchFn,
    });
    if (result !== 'AUTHORIZED') throw new sdk.UnauthorizedError();
    const retried = await fetchFn(input, withToken(init, (await grant.tokens())?.access_token));
    if (!insufficientScope(sdk, retried)) return retried;
    const text = await retried.text().catch(() => '');
    throw new sdk.SdkHttpError(
      sdk.SdkErrorCode.ClientHttpForbidden,
      'Server returned 403 insufficient_scope after step-up re-authorization',
      { status: 403, statusText: retried.statusText, text },
    );
  };
}
