import { type App, computed, inject, type InjectionKey, reactive, ref } from 'vue';
import type { HealthResponse } from '../../shared/health';
import type { SignedInUser, SignInConfig, UserResponse } from '../../shared/user';
import type { KeyValueStore } from '../app/key-value-store';
import { noHostAccess, type Platform } from '../app/platform';
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
  /** The daemon the user signed in at (absent in sessions kept before the extension signed in). */
  daemonUrl?: string;
  /** When the page got these tokens (ms since the epoch; absent in sessions kept before it was noted). */
  issuedAt?: number;
}

/** A daemon whose health names an OpenID provider: where sign-in is offered. */
interface SignInOffer {
  daemonUrl: string;
  config: SignInConfig;
}

/**
 * The signed-in user of the app (SPEC part 5: "the front end provides authentication through a context
 * provider"): provided once at mount, read with {@link useAuthUser}. Sign-in is offered when the daemon's
 * health names an OpenID provider: the web page's own daemon, or the one the extension's pairing form
 * names ({@link offerFor}).
 */
export interface AuthUser {
  /** Sign-in is offered: the daemon's health names an OpenID provider. */
  readonly available: boolean;
  readonly user: SignedInUser | null;
  /** The daemon the signed-in user signed in at, whose API takes their token. */
  readonly daemonUrl: string | null;
  /** The daemon whose sign-in is offered: kept after signing out, for signing in again. */
  readonly offeredAt: string | null;
  /** The access token to send as `Authorization: Bearer`, while it has not expired. */
  readonly token: string | null;
  readonly expiresAt: number | null;
  readonly problem: string | null;
  readonly busy: boolean;
  /** Resolves once the stored session is read and a redirect from the provider is finished. */
  readonly ready: Promise<void>;
  /**
   * Reads the health of the daemon at `daemonUrl` and offers sign-in when it names a provider (the
   * extension, whose pairing form names the daemon). Needs no prompt: a daemon the extension may not
   * reach yet is left to the token form.
   */
  offerFor(daemonUrl: string): Promise<void>;
  /**
   * Signs in at the offered daemon. True once signed in here (the extension's sign-in window); the web
   * page instead leaves for the provider and comes back signed in, as it loads.
   */
  signIn(): Promise<boolean>;
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
/** Why a page is signed out that did not sign out itself. */
export const SIGNED_OUT_ELSEWHERE = 'You were signed out in another tab or window of the inspector.';

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
    (session.refresh === undefined || isRefreshGrant(session.refresh)) &&
    (session.daemonUrl === undefined || typeof session.daemonUrl === 'string') &&
    (session.issuedAt === undefined || typeof session.issuedAt === 'number')
  );
}

/** The daemon's `signIn`, when it is one: the health answer is another program's data. */
function signInConfigOf(health: unknown): SignInConfig | null {
  const signIn = (health as Partial<HealthResponse> | null)?.signIn as Partial<SignInConfig> | undefined;
  return typeof signIn?.issuer === 'string' &&
    /^https?:\/\//.test(signIn.issuer) &&
    typeof signIn.clientId === 'string' &&
    signIn.clientId !== ''
    ? { issuer: signIn.issuer, clientId: signIn.clientId }
    : null;
}

/** The session an issued token makes: a refresh token joins the endpoint and client that take it. */
function sessionOf(
  issued: IssuedToken,
  { user, daemonUrl }: Pick<UserSession, 'user' | 'daemonUrl'>,
  { tokenEndpoint, clientId }: Omit<RefreshGrant, 'refreshToken'>,
): UserSession {
  const { accessToken, expiresAt, refreshToken } = issued;
  return {
    accessToken,
    expiresAt,
    user,
    ...(refreshToken && { refresh: { tokenEndpoint, clientId, refreshToken } }),
    ...(daemonUrl && { daemonUrl }),
    issuedAt: Date.now(),
  };
}

/** Runs `task` holding the page's renewal lock (Web Locks), or straight away where there are none. */
function withRenewLock<T>(task: () => Promise<T>): Promise<T> {
  if (typeof navigator.locks?.request !== 'function') return task();
  return navigator.locks.request(RENEW_LOCK, task) as Promise<T>;
}

/**
 * The renewal lock passes to the next tab at once, but localStorage reaches a page's other tabs a moment
 * after it is written (each tab's process keeps a copy): the tab that renews second could still read the
 * session the first just replaced and spend its refresh token again, and the provider then revokes the
 * sign-in. So a tab that writes a session holds a lock named after the session's issue time while it is
 * the session the tab holds (the browser keeps one lock list for all tabs, never late), and a tab about to
 * renew first waits until its store shows a session at least that new.
 */
const WRITTEN_LOCK = 'inspector.sessionWritten.';
/** How long a renewal waits for the store to show the session another tab wrote. */
const CATCH_UP_MS = 3_000;

/** The issue time of the newest session a tab of the page holds a written lock for; 0 when none. */
async function newestWritten(): Promise<number> {
  if (typeof navigator.locks?.query !== 'function') return 0;
  const { held = [], pending = [] } = await navigator.locks.query();
  let newest = 0;
  for (const { name } of [...held, ...pending]) {
    if (name?.startsWith(WRITTEN_LOCK))
      newest = Math.max(newest, Number(name.slice(WRITTEN_LOCK.length)) || 0);
  }
  return newest;
}

function createAuthUser(platform: Platform): AuthUser {
  const store: KeyValueStore = platform.store;
  const offer = ref<SignInOffer | null>(null);
  const session = ref<UserSession | null>(null);
  const problem = ref<string | null>(null);
  const busy = ref(false);
  let expiryTimer: ReturnType<typeof setTimeout> | undefined;
  let renewing: Promise<boolean> | undefined;
  /** Lets go of this tab's written lock (see WRITTEN_LOCK), when it holds one. */
  let dropWritten: (() => void) | undefined;

  /** Keeps `next`, written by this tab, and holds its written lock until this tab holds another session. */
  async function keepWritten(next: UserSession): Promise<void> {
    keep(next);
    if (typeof navigator.locks?.request !== 'function' || next.issuedAt === undefined) return;
    const held = new Promise<void>((resolve) => (dropWritten = resolve));
    // Taken before the renewal lock passes on, so the next tab finds it.
    await new Promise<void>((granted) => {
      void navigator.locks.request(`${WRITTEN_LOCK}${next.issuedAt}`, { ifAvailable: true }, (lock) => {
        granted();
        return lock ? held : undefined;
      });
    });
  }

  /**
   * The stored session, once it is at least as new as the newest one a tab of the page wrote (see
   * WRITTEN_LOCK), or as it is after {@link CATCH_UP_MS}.
   */
  async function storedSession(): Promise<unknown> {
    const newest = await newestWritten();
    const deadline = Date.now() + CATCH_UP_MS;
    for (;;) {
      const stored = await store.get<unknown>(SESSION_KEY);
      if (!isSession(stored) || (stored.issuedAt ?? 0) >= newest || Date.now() >= deadline) return stored;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /**
   * Renews the token shortly before it expires when there is a refresh token, and signs out when it
   * expires when there is none, so no call is made with a token the daemon would refuse.
   */
  function keep(next: UserSession | null): void {
    clearTimeout(expiryTimer);
    dropWritten?.();
    dropWritten = undefined;
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
    const stored = await storedSession();
    if (!isSession(stored)) {
      // Gone from the store while this page still held it: the user signed out in another page, and
      // this page's refresh token must not sign them back in.
      if (current) signedOutElsewhere();
      return false;
    }
    if (stored.accessToken !== refused && stored.expiresAt > Date.now()) {
      keep(stored);
      return true;
    }
    // The store holds the newest refresh token: another tab may have rotated the one this tab has.
    const grant = stored.refresh;
    if (!grant) {
      await signOut('Your sign-in expired: sign in again.');
      return false;
    }
    try {
      const next = sessionOf(await renewToken(grant), stored, grant);
      await store.set(SESSION_KEY, next);
      await keepWritten(next);
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

  function signedOutElsewhere(): void {
    keep(null);
    problem.value = SIGNED_OUT_ELSEWHERE;
  }

  /**
   * The stored session changed in another page (or, in the extension, in this one): this page follows.
   * A sign-in or a renewal there is taken here, with the daemon it was made at offered for the next
   * sign-in; a sign-out there signs this page out. What this page wrote itself changes nothing.
   */
  function followStore(stored: unknown): void {
    if (isSession(stored)) {
      if (stored.accessToken === session.value?.accessToken || stored.expiresAt <= Date.now()) return;
      keep(stored);
      problem.value = null;
      if (stored.daemonUrl && offer.value?.daemonUrl !== stored.daemonUrl) void offerFor(stored.daemonUrl);
    } else if (stored === undefined && session.value) {
      signedOutElsewhere();
    }
  }

  /** The daemon whose sign-in the form offers now: a slower answer for an earlier address is dropped. */
  let offering = '';

  async function offerFor(daemonUrl: string): Promise<void> {
    offering = daemonUrl;
    let found: SignInConfig | null = null;
    try {
      // Health needs no permission of the extension: the daemon answers an extension page's
      // cross-origin request. Signing in asks for the daemon's address (signIn).
      const response = await fetch(`${daemonUrl}/api/mcp/health`);
      found = signInConfigOf(await response.json());
    } catch {
      // The pairing form explains an absent daemon; without one there is no sign-in to offer.
    }
    if (offering === daemonUrl) offer.value = found && { daemonUrl, config: found };
  }

  /** Asks the daemon who the token belongs to: the one check that counts is the backend's. */
  async function whoIs(token: string, daemonUrl: string): Promise<SignedInUser> {
    const response = await fetch(`${daemonUrl}/api/mcp/user`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    const body = (await response.json()) as Partial<UserResponse> & { error?: string };
    if (!response.ok || !body.user) {
      throw new SignInError(`The daemon refused the signed-in user: ${body.error ?? response.status}`);
    }
    return body.user;
  }

  /**
   * The provider sent the browser back to `redirected` with `code` and `state`: trades them for the
   * token, asks `daemonUrl` whose it is and keeps the session.
   */
  async function finish(
    redirected: URLSearchParams,
    pending: PendingSignIn,
    daemonUrl: string,
  ): Promise<void> {
    const issued = await finishSignIn(redirected, pending);
    const user = await whoIs(issued.accessToken, daemonUrl);
    const next = sessionOf(issued, { user, daemonUrl }, pending);
    await store.set(SESSION_KEY, next);
    await keepWritten(next);
    problem.value = null;
  }

  /** The web page came back from the provider: finishes the sign-in its tab started. */
  async function finishRedirect(): Promise<void> {
    const params = new URLSearchParams(location.search);
    const text = sessionStorage.getItem(PENDING_KEY);
    if (!text || !params.has('state')) return;
    sessionStorage.removeItem(PENDING_KEY);
    // The code is single-use and must not stay in the address bar or the history.
    history.replaceState(null, '', location.pathname);
    busy.value = true;
    try {
      await finish(params, JSON.parse(text) as PendingSignIn, platform.defaultDaemonUrl);
    } catch (error) {
      problem.value = (error as Error).message;
    } finally {
      busy.value = false;
    }
  }

  async function load(): Promise<void> {
    store.watch?.(SESSION_KEY, followStore);
    const stored = await store.get<unknown>(SESSION_KEY);
    if (isSession(stored) && stored.expiresAt > Date.now()) keep(stored);
    // A token that expired while the page was closed is renewed when it can be.
    else if (isSession(stored) && stored.refresh) await renew(stored.accessToken);
    else if (stored !== undefined) await store.remove(SESSION_KEY);
    // The extension offers sign-in again where the user signed in; the web page at its own daemon.
    const daemonUrl = platform.kind === 'web' ? platform.defaultDaemonUrl : session.value?.daemonUrl;
    if (daemonUrl) await offerFor(daemonUrl);
    if (platform.kind === 'web') await finishRedirect();
  }

  /**
   * Discovery, then the authorization request: in the extension's sign-in window, which answers where
   * the provider sent it back, or on the web page by leaving for the provider (the tab keeps the pending
   * request in sessionStorage until it comes back).
   */
  async function signIn(): Promise<boolean> {
    const current = offer.value;
    if (!current) return false;
    const flow = platform.signInWindow;
    busy.value = true;
    problem.value = null;
    try {
      const { daemonUrl } = current;
      // From the click (a user gesture): the browser asks for the daemon's address, as pairing does.
      if (!(await platform.hasHostAccess(daemonUrl)) && !(await platform.requestHostAccess(daemonUrl))) {
        throw new SignInError(noHostAccess(daemonUrl));
      }
      const { issuer, clientId } = current.config;
      const redirectUri = flow?.redirectUri() ?? `${location.origin}/`;
      const { url, pending } = await startSignIn(await discover(issuer), clientId, redirectUri);
      if (!flow) {
        sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
        location.assign(url);
        return false;
      }
      await finish(new URL(await flow.launch(url)).searchParams, pending, current.daemonUrl);
      busy.value = false;
      return true;
    } catch (error) {
      problem.value = (error as Error).message;
      busy.value = false;
      return false;
    }
  }

  const live = computed(() => (session.value && session.value.expiresAt > Date.now() ? session.value : null));
  return reactive({
    available: computed(() => offer.value !== null),
    offeredAt: computed(() => offer.value?.daemonUrl ?? null),
    user: computed(() => live.value?.user ?? null),
    daemonUrl: computed(() => (live.value ? (live.value.daemonUrl ?? platform.defaultDaemonUrl) : null)),
    token: computed(() => live.value?.accessToken ?? null),
    expiresAt: computed(() => live.value?.expiresAt ?? null),
    problem,
    busy,
    ready: load(),
    offerFor,
    signIn,
    renew,
    signOut,
  }) as AuthUser;
}
