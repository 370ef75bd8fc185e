import type { Root, ServerConfig, ServerRecord } from '../../shared/servers.ts';
import { DaemonError, quotedName } from '../errors.ts';
import {
  readRegistry,
  removeStaleTemporaries,
  type StoredServer,
  writeRegistry,
} from '../servers/registry-file.ts';
import { type ConnectionDeps, ServerConnection } from './server-connection.ts';

export interface RegistryHooks {
  /** A server was replaced or removed: a grant made for its old settings goes (daemon/oauth). */
  onReplaced?: (id: string, config: ServerConfig | undefined) => Promise<void>;
  /** A server was removed; one added or replaced is told through `deps.onStatus` with its new record. */
  onRemoved?: (id: string) => void;
}

/**
 * How long a change of the registry waits for a removed or replaced server's connection to close before
 * the next change may go: a server that never answers its close goes on closing on its own.
 */
const RETIRE_WAIT_MS = 5000;

/** Waits for `work`, or `ms`, whichever ends first; `work` goes on either way. */
async function atMost(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  await Promise.race([work.catch(() => {}), waited]);
  clearTimeout(timer);
}

/** The registered servers and their pooled connections; every change is persisted to the registry file. */
export class ClientManager {
  private readonly connections = new Map<string, ServerConnection>();
  private saving: Promise<void> = Promise.resolve();
  private changes: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly registryFile: string,
    private readonly deps: ConnectionDeps,
    private readonly hooks: RegistryHooks = {},
  ) {}

  async load(): Promise<void> {
    await removeStaleTemporaries(this.registryFile);
    for (const server of await readRegistry(this.registryFile)) this.add(server);
  }

  list(): ServerRecord[] {
    return [...this.connections.values()].map((c) => c.record());
  }

  get(id: string): ServerConnection {
    const connection = this.connections.get(id);
    if (!connection) throw new DaemonError('server_not_found', `Unknown server ${quotedName(id)}`);
    return connection;
  }

  has(id: string): boolean {
    return this.connections.has(id);
  }

  /**
   * Adds or replaces servers; a replaced server's connection is closed. Each new record is told, and
   * answered with whether it replaced one.
   */
  put(servers: StoredServer[]): Promise<Array<{ record: ServerRecord; replaced: boolean }>> {
    return this.inTurn(async () => {
      const added: Array<{ record: ServerRecord; replaced: boolean }> = [];
      for (const server of servers) {
        const existing = this.connections.get(server.id);
        if (existing) await atMost(existing.retire('replaced'), RETIRE_WAIT_MS);
        await this.hooks.onReplaced?.(server.id, server.config);
        // Roots are the inspector's setting for the server, not part of its config: a new config keeps them.
        const record = this.add({ ...server, roots: server.roots ?? existing?.rootList }).record();
        this.deps.onStatus?.(record);
        added.push({ record, replaced: existing !== undefined });
      }
      await this.save();
      return added;
    });
  }

  remove(id: string): Promise<void> {
    return this.inTurn(async () => {
      const connection = this.get(id);
      this.connections.delete(id);
      await atMost(connection.retire('removed'), RETIRE_WAIT_MS);
      await this.hooks.onReplaced?.(id, undefined);
      this.hooks.onRemoved?.(id);
      await this.save();
    });
  }

  /**
   * Replaces a server's roots, persists them, and tells the server if connected. Telling it is waited
   * for outside the turn: a server that never takes the notification holds up this request only.
   */
  async setRoots(id: string, roots: Root[]): Promise<void> {
    let told: Promise<void> = Promise.resolve();
    await this.inTurn(async () => {
      told = this.get(id).setRoots(roots);
      await this.save();
    });
    await told;
  }

  /**
   * Runs one change of the registry after the one before has ended. Two PUTs of one id at once each read
   * the connection to replace while the other awaited: the second replaced the first's connection without
   * closing it, and a server it had started ran on with nothing left to stop it.
   */
  private inTurn<T>(change: () => Promise<T>): Promise<T> {
    const turn = this.changes.then(change);
    this.changes = turn.catch(() => {});
    return turn;
  }

  configOf(id: string): ServerConfig | undefined {
    return this.connections.get(id)?.config;
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.connections.values()].map((c) => c.disconnect()));
    await this.saving;
  }

  private add(server: StoredServer): ServerConnection {
    const connection = new ServerConnection(server.id, server.name, server.config, this.deps, server.roots);
    this.connections.set(server.id, connection);
    return connection;
  }

  /** Writes are chained so two quick changes never race on the file. */
  private save(): Promise<void> {
    const servers = [...this.connections.values()].map(({ id, name, config, rootList }) => ({
      id,
      name,
      config,
      ...(rootList.length && { roots: rootList }),
    }));
    this.saving = this.saving.catch(() => {}).then(() => writeRegistry(this.registryFile, servers));
    return this.saving;
  }
}
