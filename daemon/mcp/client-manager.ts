import type { Root, ServerConfig, ServerRecord } from '../../shared/servers.ts';
import { DaemonError } from '../errors.ts';
import {
  readRegistry,
  removeStaleTemporaries,
  type StoredServer,
  writeRegistry,
} from '../servers/registry-file.ts';
import { type ConnectionDeps, ServerConnection } from './server-connection.ts';

/** The registered servers and their pooled connections; every change is persisted to the registry file. */
export class ClientManager {
  private readonly connections = new Map<string, ServerConnection>();
  private saving: Promise<void> = Promise.resolve();

  constructor(
    private readonly registryFile: string,
    private readonly deps: ConnectionDeps,
    /** Called when a server is replaced or removed: a grant made for its old settings goes (daemon/oauth). */
    private readonly onReplaced?: (id: string, config: ServerConfig | undefined) => Promise<void>,
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
    if (!connection) throw new DaemonError('server_not_found', `Unknown server "${id}"`);
    return connection;
  }

  has(id: string): boolean {
    return this.connections.has(id);
  }

  /** Adds or replaces a server; a replaced server's connection is closed. Returns whether it was new. */
  async put(servers: StoredServer[]): Promise<void> {
    for (const server of servers) {
      const existing = this.connections.get(server.id);
      await existing?.disconnect();
      await this.onReplaced?.(server.id, server.config);
      // Roots are the inspector's setting for the server, not part of its config: a new config keeps them.
      this.add({ ...server, roots: server.roots ?? existing?.rootList });
    }
    await this.save();
  }

  async remove(id: string): Promise<void> {
    const connection = this.get(id);
    this.connections.delete(id);
    await connection.disconnect();
    await this.onReplaced?.(id, undefined);
    await this.save();
  }

  /** Replaces a server's roots, tells it if connected, and persists them. */
  async setRoots(id: string, roots: Root[]): Promise<void> {
    await this.get(id).setRoots(roots);
    await this.save();
  }

  configOf(id: string): ServerConfig | undefined {
    return this.connections.get(id)?.config;
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.connections.values()].map((c) => c.disconnect()));
    await this.saving;
  }

  private add(server: StoredServer): void {
    this.connections.set(
      server.id,
      new ServerConnection(server.id, server.name, server.config, this.deps, server.roots),
    );
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
