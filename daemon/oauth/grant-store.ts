/**
 * The OAuth grants the daemon holds, one file per server in `<data folder>/oauth/<server id>.json`,
 * mode 0600 in a 0700 folder: access and refresh tokens, and the client registration made for it. No
 * route ever returns these; the server record shows only when the grant ends and its scopes.
 */
import { randomBytes } from 'node:crypto';
import { open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { makeFolder } from '../make-folder.ts';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/client';

/** Tokens as the SDK hands them over (with its `issuer` stamp), and when they were obtained. */
export type StoredTokens = OAuthTokens & { issuer?: string };
export type StoredClient = OAuthClientInformationMixed & { issuer?: string };

export interface Grant {
  tokens?: StoredTokens;
  /** Milliseconds since the epoch: with `expires_in`, when the access token ends. */
  obtainedAt?: number;
  /** A dynamic registration (or CIMD client id) the daemon made with the authorization server. */
  client?: StoredClient;
  /** The settings the grant was made under: changed settings (another URL, client) drop it. */
  boundTo?: string;
}

export class GrantStore {
  private readonly folder: string;
  private readonly cache = new Map<string, Grant>();
  private writing: Promise<void> = Promise.resolve();

  constructor(dataDir: string) {
    this.folder = join(dataDir, 'oauth');
  }

  private file(serverId: string): string {
    // Server ids are checked against SERVER_ID_PATTERN: letters, digits, ".", "_", "-", never "..".
    return join(this.folder, `${serverId.replace(/^\.+/, '_')}.json`);
  }

  async load(serverId: string): Promise<Grant> {
    const cached = this.cache.get(serverId);
    if (cached) return cached;
    let grant: Grant = {};
    try {
      const parsed: unknown = JSON.parse(await readFile(this.file(serverId), 'utf8'));
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) grant = parsed as Grant;
    } catch {
      // none yet, or unreadable: the person signs in again
    }
    this.cache.set(serverId, grant);
    return grant;
  }

  /** The grant as last loaded or saved, without touching the disk (for the server record). */
  peek(serverId: string): Grant | undefined {
    return this.cache.get(serverId);
  }

  async update(serverId: string, change: (grant: Grant) => Grant): Promise<void> {
    const next = change({ ...(await this.load(serverId)) });
    this.cache.set(serverId, next);
    const write = () => this.write(serverId, next);
    this.writing = this.writing.catch(() => {}).then(write);
    await this.writing;
  }

  async forget(serverId: string): Promise<void> {
    this.cache.set(serverId, {});
    this.writing = this.writing.catch(() => {}).then(() => rm(this.file(serverId), { force: true }));
    await this.writing;
  }

  private async write(serverId: string, grant: Grant): Promise<void> {
    await makeFolder(this.folder);
    const file = this.file(serverId);
    const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      const handle = await open(temporary, 'wx', 0o600);
      try {
        await handle.writeFile(`${JSON.stringify(grant)}\n`, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, file);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }
}
