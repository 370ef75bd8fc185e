import { type App, computed, inject, type InjectionKey, reactive, ref } from 'vue';
import type { HealthResponse } from '../../shared/health';
import type { SignedInUser, SignInConfig, UserResponse } from '../../shared/user';
import type { KeyValueStore } from '../app/key-value-store';
import type { Platform } from '../app/platform';
import {
  discover,
  finishSignIn,
  type IssuedToken,
  type PendingSignIn,
  type RefreshGrant,
  renewDelay,
  renewToken,
  SignInError,
  startSignIn,
} from './oidc';

/**
 * The signed-in user's token, with its expiry (SPEC part 5), and who the daemon says it belongs to; with
 * the refresh token that renews it when the provider gave one. The refresh token goes to the provider's
 * token endpoint and nowhere else: never to the daemon, never to a log.
 */
export interface UserSession {
  accessToken: string;
  expiresAt: number;
  user: SignedInUser;
  refresh?: RefreshGrant;
}

/**
 * The signed-in user of the app (SPEC part 5: "the front end provides authentication through a context
 * provider"): provided once at mount, read with {@link useAuthUser}. Sign-in is offered on the web page
 * the daemon serves when its health names an OpenID provider; the extension pairs with the session token.
 */
export interface AuthUser {
  /** Sign-in is offered: the web page, and a daemon with an OpenID provider. */
  readonly available: boolean;
  readonly user: SignedInUser | null;
  /** The access token to send as `Authorization: Bearer`, while it has not expired. */
  readonly token: string | null;
  readonly expiresAt: number | null;
  readonly problem: string | null;
  readonly busy: boolean;
  /** Resolves once the stored session is read and a redirect from the provider is finished. */
  readonly ready: Promise<void>;
  signIn(): Promise<void>;
  /**
   * The daemon refused `refused` (401): renews the token once with the refresh token. True when a new
   * token is there to retry with; false when it cannot be renewed, and the user is then signed out.
   */
  renew(refused: string): Promise<boolean>;
  /** Forgets the token; `reason` is shown on the sign-in button (an expired or refused token). */
  signOut(reason?: string): Promise<void>;
}

export const AUTH_USER: InjectionKey<AuthUser> = Symbol('auth-user');
const SESSION_KEY = 'userSession';
/** Kept in sessionStorage, only for the tab that went to the provider. */
const PENDING_KEY = 'inspector.pendingSignIn';
/** Tabs of one page renew one at a time: a rotated refresh token spent twice revokes the sign-in. */
const RENEW_LOCK = 'inspector.renewSignIn';

export function useAuthUser(): AuthUser {
  const auth = inject(AUTH_USER);
  if (!auth) throw new Error('The inspector app was mounted without its auth-user provider');
  return auth;
}

/** Makes the app's AuthUser and provides it; on the web page it also finishes a sign-in coming back. */
export function provideAuthUser(app: App, platform: Platform): AuthUser {
  const auth = createAuthUser(platform);
  app.provide(AUTH_USER, auth);
  return auth;
}

function isRefreshGrant(value: unknown): value is RefreshGrant {
  const grant = value as RefreshGrant | undefined;
  return (
    typeof grant?.tokenEndpoint === 'string' &&
    typeof grant.clientId === 'string' &&
    typeof grant.refreshToken === 'string'
  );
}

function isSession(value: unknown): value is UserSession {
  const session = value as UserSession | undefined;
  return (
    typeof session?.accessToken === 'string' &&
    typeof session.expiresAt === 'number' &&
    typeof session.user?.sub === 'string' &&
    (session.refresh === undefined || isRefreshGrant(session.refresh))
  );
}

/** The session an issued token makes: a refresh token joins the endpoint and client that take it. */
function sessionOf(
  issued: IssuedToken,
  user: SignedInUser,
  { tokenEndpoint, clientId }: Omit<RefreshGrant, 'refreshToken'>,
): UserSession {
  const { accessToken, expiresAt, refreshToken } = issued;
  return {
    accessToken,
    expiresAt,
    user,
    ...(refreshToken && { refresh: { tokenEndpoint, clientId, refreshToken } }),
  };
}

/** Runs `task` holding the page's renewal lock (Web Locks), or straight away where there are none. */
function withRenewLock<T>(task: () => Promise<T>): Promise<T> {
  if (typeof navigator.locks?.request !== 'function') return task();
  return navigator.locks.request(RENEW_LOCK, task) as Promise<T>;
}

function createAuthUser(platform: Platform): AuthUser {
  const store: KeyValueStore = platform.store;
  const config = ref<SignInConfig | null>(null);
  const session = ref<UserSession | null>(null);
  const problem = ref<string | null>(null);
  const busy = ref(false);
  let expiryTimer: ReturnType<typeof setTimeout> | undefined;
  let renewing: Promise<boolean> | undefined;

  /**
   * Renews the token shortly before it expires when there is a refresh token, and signs out when it
   * expires when there is none, so no call is made with a token the daemon would refuse.
   */
  function keep(next: UserSession | null): void {
    clearTimeout(expiryTimer);
    session.value = next;
    if (!next) return;
    if (next.refresh) at(Date.now() + renewDelay(next.expiresAt), () => void renew(next.accessToken));
    else at(next.expiresAt, () => void signOut('Your sign-in expired: sign in again.'));
  }

  /** Runs `action` at the time `when` (ms since the epoch), unless {@link keep} is called first. */
  function at(when: number, action: () => void): void {
    // setTimeout holds at most 2^31-1 ms (24.8 days); a later time is waited for in steps.
    expiryTimer = setTimeout(
      () => (Date.now() >= when ? action() : at(when, action)),
      Math.min(when - Date.now(), 2 ** 31 - 1),
    );
  }

  /** One renewal at a time, in this tab and across the page's tabs. */
  function renew(refused: string): Promise<boolean> {
    renewing ??= withRenewLock(() => renewNow(refused)).finally(() => (renewing = undefined));
    return renewing;
  }

  /**
   * Trades the refresh token for a new access token and keeps it. Another tab may have renewed first:
   * its newer session in the store is taken instead, as the refresh token this tab holds is spent.
   */
  async function renewNow(refused: string): Promise<boolean> {
    const current = session.value;
    if (current && current.accessToken !== refused) return true;
    const stored = await store.get<unknown>(SESSION_KEY);
    if (!current && !isSession(stored)) return false;
    if (isSession(stored) && stored.accessToken !== refused && stored.expiresAt > Date.now()) {
      keep(stored);
      return true;
    }
    // The store holds the newest refresh token: another tab may have rotated the one this tab has.
    const latest = isSession(stored) ? stored : current;
    const grant = latest?.refresh;
    const user = latest?.user;
    if (!grant || !user) {
      await signOut('Your sign-in expired: sign in again.');
      return false;
    }
    try {
      const next = sessionOf(await renewToken(grant), user, grant);
      await store.set(SESSION_KEY, next);
      keep(next);
      return true;
    } catch (error) {
      await signOut(`Your sign-in could not be renewed (${(error as Error).message}): sign in again.`);
      return false;
    }
  }

  async function signOut(reason?: string): Promise<void> {
    keep(null);
    problem.value = reason ?? null;
    await store.remove(SESSION_KEY);
  }

  async function readConfig(): Promise<void> {
    if (platform.kind !== 'web') return;
    try {
      const response = await fetch(`${platform.defaultDaemonUrl}/api/mcp/health`);
      const health = (await response.json()) as HealthResponse;
      config.value = health.signIn ?? null;
    } catch {
      // The pairing form explains an absent daemon; without one there is no sign-in to offer.
    }
  }

  /** Asks the daemon who the token belongs to: the one check that counts is the backend's. */
  async function whoIs(token: string): Promise<SignedInUser> {
    const response = await fetch(`${platform.defaultDaemonUrl}/api/mcp/user`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    const body = (await response.json()) as Partial<UserResponse> & { error?: string };
    if (!response.ok || !body.user) {
      throw new SignInError(`The daemon refused the signed-in user: ${body.error ?? response.status}`);
    }
    return body.user;
  }

  /** The provider sent the browser back with `code` and `state`: trade them for the token. */
  async function finishRedirect(): Promise<void> {
    const params = new URLSearchParams(location.search);
    const text = sessionStorage.getItem(PENDING_KEY);
    if (!text || !params.has('state')) return;
    sessionStorage.removeItem(PENDING_KEY);
    // The code is single-use and must not stay in the address bar or the history.
    history.replaceState(null, '', location.pathname);
    busy.value = true;
    try {
      const pending = JSON.parse(text) as PendingSignIn;
      const issued = await finishSignIn(params, pending);
      const next = sessionOf(issued, await whoIs(issued.accessToken), pending);
      await store.set(SESSION_KEY, next);
      keep(next);
      problem.value = null;
    } catch (error) {
      problem.value = (error as Error).message;
    } finally {
      busy.value = false;
    }
  }

  async function load(): Promise<void> {
    const stored = await store.get<unknown>(SESSION_KEY);
    if (isSession(stored) && stored.expiresAt > Date.now()) keep(stored);
    // A token that expired while the page was closed is renewed when it can be.
    else if (isSession(stored) && stored.refresh) await renew(stored.accessToken);
    else if (stored !== undefined) await store.remove(SESSION_KEY);
    await readConfig();
    if (platform.kind === 'web') await finishRedirect();
  }

  async function signIn(): Promise<void> {
    const current = config.value;
    if (!current) return;
    busy.value = true;
    problem.value = null;
    try {
      const metadata = await discover(current.issuer);
      const { url, pending } = await startSignIn(metadata, current.clientId, `${location.origin}/`);
      sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
      location.assign(url);
    } catch (error) {
      problem.value = (error as Error).message;
      busy.value = false;
    }
  }

  const live = computed(() => (session.value && session.value.expiresAt > Date.now() ? session.value : null));
  return reactive({
    available: computed(() => platform.kind === 'web' && config.value !== null),
    user: computed(() => live.value?.user ?? null),
    token: computed(() => live.value?.accessToken ?? null),
    expiresAt: computed(() => live.value?.expiresAt ?? null),
    problem,
    busy,
    ready: load(),
    signIn,
    renew,
    signOut,
  }) as AuthUser;
}
