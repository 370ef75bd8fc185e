import { hash } from 'node:crypto';
import type { SignedInUser } from '../../shared/user.ts';
import { DaemonError } from '../errors.ts';

/**
 * SPEC part 5 for a shared daemon: a caller may present a user's bearer token instead of the session
 * token, and the cloud backend (CLOUD_BACKEND_HTTP_URL) says whose it is. The contract, documented in
 * README "Shared daemons": `GET <backend>/auth/validate` with `Authorization: Bearer <token>`; 200 with
 * `{ sub, name?, email?, exp? }` (exp in seconds since the epoch) is a valid token, 401 or 403 is not,
 * anything else means the backend cannot say.
 */
export interface UserTokenOptions {
  backendUrl: string;
  /** How long one call to the backend may take (5 s). */
  timeoutMs?: number;
  /** How long a valid answer is trusted without asking again, at most (60 s), never past its `exp`. */
  maxAgeMs?: number;
  /** At most this many tokens are remembered; the oldest goes first. */
  maxEntries?: number;
}

interface Entry {
  user: SignedInUser;
  until: number;
}

/** The longest answer read from the backend: a user record is a few hundred bytes. */
const MAX_ANSWER_BYTES = 64 * 1024;
const MAX_FIELD = 512;

/** Tokens are remembered by their digest: the cache never holds a token that a heap dump would show. */
const keyOf = (token: string): string => hash('sha256', token, 'base64url');

export class UserTokenValidator {
  private readonly cache = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<SignedInUser>>();
  private readonly validateUrl: string;
  private readonly timeoutMs: number;
  private readonly maxAgeMs: number;
  private readonly maxEntries: number;

  constructor(options: UserTokenOptions) {
    this.validateUrl = new URL('auth/validate', options.backendUrl.replace(/\/*$/, '/')).href;
    this.timeoutMs = options.timeoutMs ?? 5_000;
    this.maxAgeMs = options.maxAgeMs ?? 60_000;
    this.maxEntries = options.maxEntries ?? 1_000;
  }

  /** The token's user; throws DaemonError `unauthorized` or `auth_backend_unavailable`. */
  async validate(token: string, now = Date.now()): Promise<SignedInUser> {
    const key = keyOf(token);
    const cached = this.cache.get(key);
    if (cached && now < cached.until) return cached.user;
    if (cached) this.cache.delete(key);
    // Concurrent calls with one token (a page loading its views) ask the backend once.
    let asking = this.pending.get(key);
    if (!asking) {
      asking = this.ask(token, key).finally(() => this.pending.delete(key));
      this.pending.set(key, asking);
    }
    return asking;
  }

  private async ask(token: string, key: string): Promise<SignedInUser> {
    let response: Response;
    try {
      response = await fetch(this.validateUrl, {
        headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' },
        redirect: 'error',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      const timedOut = (error as Error).name === 'TimeoutError';
      throw unavailable(
        timedOut
          ? `did not answer within ${this.timeoutMs / 1000} s`
          : 'cannot be reached (is CLOUD_BACKEND_HTTP_URL right and the backend running?)',
      );
    }
    if (response.status === 401 || response.status === 403) {
      await response.body?.cancel();
      throw new DaemonError('unauthorized', 'Unauthorized: the sign-in backend refused the user token');
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      throw unavailable(`answered ${response.status}`);
    }
    let text: string | undefined;
    try {
      text = await readCapped(response);
    } catch {
      throw unavailable('broke off its answer');
    }
    const user = parseAnswer(text);
    if (!user) throw unavailable('answered 200 without a user record ({ sub, name?, email?, exp? })');
    const now = Date.now();
    const expiresAt = user.exp === undefined ? Infinity : user.exp * 1000;
    if (expiresAt <= now) throw new DaemonError('unauthorized', 'Unauthorized: the user token has expired');
    this.remember(key, user.record, Math.min(expiresAt, now + this.maxAgeMs));
    return user.record;
  }

  private remember(key: string, user: SignedInUser, until: number): void {
    this.cache.set(key, { user, until });
    for (const oldest of this.cache.keys()) {
      if (this.cache.size <= this.maxEntries) break;
      this.cache.delete(oldest);
    }
  }
}

const unavailable = (what: string): DaemonError =>
  new DaemonError(
    'auth_backend_unavailable',
    `The sign-in backend ${what}: the user token cannot be checked`,
  );

/** The body as text, or `undefined` past {@link MAX_ANSWER_BYTES}: the backend is trusted with no more. */
async function readCapped(response: Response): Promise<string | undefined> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const shortString = (value: unknown): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= MAX_FIELD;

/** The backend's answer checked field by field; `undefined` when it is not a user record. */
function parseAnswer(text: string | undefined): { record: SignedInUser; exp?: number } | undefined {
  if (text === undefined) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { sub, name, email, exp } = body as Record<string, unknown>;
  if (!shortString(sub)) return undefined;
  if (name !== undefined && !shortString(name)) return undefined;
  if (email !== undefined && !shortString(email)) return undefined;
  if (exp !== undefined && (typeof exp !== 'number' || !Number.isFinite(exp))) return undefined;
  const record: SignedInUser = {
    sub,
    ...(name !== undefined && { name }),
    ...(email !== undefined && { email }),
  };
  return exp === undefined ? { record } : { record, exp };
}
