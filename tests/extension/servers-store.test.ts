// @vitest-environment node
/**
 * The servers store against a real daemon: the list the sidebar shows, adding, importing, connecting,
 * disconnecting and removing servers, a server that fails to connect, and a daemon that stops answering.
 */
import { createPinia, setActivePinia } from 'pinia';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useConnectionStore } from '../../extension/app/connection-store';
import type { DaemonClient } from '../../extension/app/daemon-client';
import { useServersStore } from '../../extension/servers/servers-store';
import type { ServersResponse } from '../../shared/routes';
import type { StdioServerConfig } from '../../shared/servers';
import { everythingStdio, fixtureStdio, startDaemon, type TestDaemon } from '../daemon/helpers';
import { pairWith } from './daemon-pairing';

let daemon: TestDaemon;

beforeAll(async () => {
  daemon = await startDaemon();
});
afterAll(async () => {
  await daemon?.close();
});

beforeEach(async () => {
  setActivePinia(createPinia());
  await pairWith(daemon);
  // Each test starts from an empty registry.
  const { body } = await daemon.api('GET', '/api/mcp/servers');
  for (const { id } of body.servers as Array<{ id: string }>) {
    expect((await daemon.api('DELETE', `/api/mcp/servers/${id}`)).status).toBe(200);
  }
});

const NO_SUCH_COMMAND: StdioServerConfig = {
  transport: 'stdio',
  command: 'inspector-no-such-command',
  args: [],
};

describe('servers store', () => {
  it("lists the daemon's servers and selects the first, and lets go of one removed elsewhere", async () => {
    for (const id of ['alpha', 'beta']) {
      await daemon.api('PUT', `/api/mcp/servers/${id}`, { config: NO_SUCH_COMMAND });
    }
    const servers = useServersStore();
    await servers.refresh();
    expect(servers.error).toBeNull();
    expect(servers.servers.map((s) => s.id).sort()).toEqual(['alpha', 'beta']);
    const first = servers.servers[0]!.id;
    expect(servers.selectedId).toBe(first);
    expect(servers.selected?.id).toBe(first);

    await daemon.api('DELETE', `/api/mcp/servers/${first}`);
    await servers.refresh();
    const other = first === 'alpha' ? 'beta' : 'alpha';
    expect(servers.servers.map((s) => s.id)).toEqual([other]);
    expect(servers.selectedId).toBe(other);
  });

  it('adds a server the daemon keeps, selects it, and replaces it when saved again', async () => {
    const servers = useServersStore();
    await servers.refresh();
    expect(servers.servers).toEqual([]);
    expect(servers.selectedId).toBeNull();

    const config = everythingStdio();
    const record = await servers.save('everything', { name: 'Everything', config });
    expect(record).toMatchObject({ id: 'everything', name: 'Everything', status: 'disconnected' });
    expect(servers.selectedId).toBe('everything');
    expect((await daemon.api('GET', '/api/mcp/servers/everything')).body.config).toEqual(config);

    await servers.save('everything', { name: 'Everything again', config });
    expect(servers.servers.map((s) => [s.id, s.name])).toEqual([['everything', 'Everything again']]);
  });

  it('connects a server, with its initialize result in the record, and disconnects it', async () => {
    const servers = useServersStore();
    await servers.save('fixture', { config: fixtureStdio('tools-server.ts') });
    await servers.setConnected('fixture', true);
    expect(servers.busy.fixture).toBe(false);
    expect(servers.selected).toMatchObject({ status: 'connected', serverInfo: { name: expect.any(String) } });
    expect(servers.selected?.protocolVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect((await daemon.api('GET', '/api/mcp/servers/fixture')).body.status).toBe('connected');

    await servers.setConnected('fixture', false);
    expect(servers.selected?.status).toBe('disconnected');
    expect((await daemon.api('GET', '/api/mcp/servers/fixture')).body.status).toBe('disconnected');
  });

  it('shows why a server could not connect, as the daemon kept it, without throwing', async () => {
    const servers = useServersStore();
    await servers.save('broken', { config: NO_SUCH_COMMAND });
    await servers.setConnected('broken', true);
    expect(servers.busy.broken).toBe(false);
    const kept = (await daemon.api('GET', '/api/mcp/servers/broken')).body;
    expect(kept.lastError).toContain('inspector-no-such-command');
    expect(servers.selected).toMatchObject({ status: kept.status, lastError: kept.lastError });
    expect(servers.selected?.status).not.toBe('connected');
  });

  it('imports an mcpServers object and selects the first server it added', async () => {
    const servers = useServersStore();
    const { command, args } = everythingStdio();
    const imported = await servers.importJson({
      one: { command, args },
      two: { command, args: [...(args ?? [])] },
    });
    expect(imported.map((s) => s.id)).toEqual(['one', 'two']);
    expect(servers.selectedId).toBe('one');
    const listed = (await daemon.api('GET', '/api/mcp/servers')).body.servers as Array<{ id: string }>;
    expect(listed.map((s) => s.id).sort()).toEqual(['one', 'two']);
  });

  it('removes a server from the daemon and selects the next one left', async () => {
    const servers = useServersStore();
    await servers.save('keep', { config: NO_SUCH_COMMAND });
    await servers.save('drop', { config: NO_SUCH_COMMAND });
    expect(servers.selectedId).toBe('drop');
    await servers.remove('drop');
    expect(servers.servers.map((s) => s.id)).toEqual(['keep']);
    expect(servers.selectedId).toBe('keep');
    expect((await daemon.api('GET', '/api/mcp/servers/drop')).status).toBe(404);
  });

  it('does not bring back a server it removed when the status the daemon told as it closed comes late', async () => {
    const servers = useServersStore();
    await servers.save('keep', { config: NO_SUCH_COMMAND });
    const dropped = await servers.save('drop', { config: NO_SUCH_COMMAND });
    await servers.remove('drop');
    // The live channel's messages for the DELETE, arriving after its answer: the closed connection's
    // status, then server-removed.
    servers.heard({ ...dropped, status: 'disconnected' });
    expect(servers.servers.map((s) => s.id)).toEqual(['keep']);
    expect(servers.selectedId).toBe('keep');
    servers.heardRemoved('drop');
    expect(servers.servers.map((s) => s.id)).toEqual(['keep']);

    // Added again elsewhere afterwards: shown.
    const again = await daemon.api('PUT', '/api/mcp/servers/drop', {
      name: 'Again',
      config: NO_SUCH_COMMAND,
    });
    servers.heard(again.body);
    expect(servers.servers.map((s) => [s.id, s.name])).toEqual([
      ['keep', 'keep'],
      ['drop', 'Again'],
    ]);
  });

  it('still hears of a server whose removal the daemon refused, and of one re-added before a refresh', async () => {
    const servers = useServersStore();
    await expect(servers.remove('never-added')).rejects.toThrow();
    const added = await daemon.api('PUT', '/api/mcp/servers/never-added', { config: NO_SUCH_COMMAND });
    servers.heard(added.body);
    expect(servers.servers.map((s) => s.id)).toEqual(['never-added']);

    // Removed here while the live channel was down (its server-removed never came): the refresh at its
    // next hello finds the server gone, and a server added with that id later is shown.
    await servers.remove('never-added');
    await servers.refresh();
    const back = await daemon.api('PUT', '/api/mcp/servers/never-added', { config: NO_SUCH_COMMAND });
    servers.heard(back.body);
    expect(servers.servers.map((s) => s.id)).toEqual(['never-added']);
  });

  it('keeps the list it had and says why when the daemon stops answering', async () => {
    const gone = await startDaemon();
    setActivePinia(createPinia());
    await pairWith(gone);
    await gone.api('PUT', '/api/mcp/servers/left', { config: NO_SUCH_COMMAND });
    const servers = useServersStore();
    await servers.refresh();
    expect(servers.servers.map((s) => s.id)).toEqual(['left']);

    await gone.close();
    await servers.refresh();
    expect(servers.error).toMatch(/.+/);
    expect(servers.servers.map((s) => s.id)).toEqual(['left']);
    expect(servers.selectedId).toBe('left');
  });
  it('keeps a server told by the live channel while the list was being asked for', async () => {
    const servers = useServersStore();
    const hold = holdListAnswers();
    const refreshed = servers.refresh();
    expect((await hold.answered()).map((s) => s.id)).toEqual([]);
    const added = await daemon.api('PUT', '/api/mcp/servers/late', { config: NO_SUCH_COMMAND });
    expect(added.status).toBe(201);
    // As the live channel's server-status does, before the older answer arrives.
    servers.heard(added.body);
    hold.release();
    await refreshed;
    expect(servers.servers.map((s) => s.id)).toEqual(['late']);
    expect(servers.selectedId).toBe('late');
  });

  it('lets go of a server removed while the list was being asked for', async () => {
    await daemon.api('PUT', '/api/mcp/servers/gone', { config: NO_SUCH_COMMAND });
    const servers = useServersStore();
    const hold = holdListAnswers();
    const refreshed = servers.refresh();
    expect((await hold.answered()).map((s) => s.id)).toEqual(['gone']);
    expect((await daemon.api('DELETE', '/api/mcp/servers/gone')).status).toBe(200);
    // As the live channel's server-removed does.
    servers.heardRemoved('gone');
    hold.release();
    await refreshed;
    expect(servers.servers).toEqual([]);
    expect(servers.selectedId).toBeNull();
  });

  it('applies only the last refresh asked for when an earlier one is answered after it', async () => {
    await daemon.api('PUT', '/api/mcp/servers/alpha', { config: NO_SUCH_COMMAND });
    const servers = useServersStore();
    const hold = holdListAnswers();
    const first = servers.refresh();
    expect((await hold.answered()).map((s) => s.id)).toEqual(['alpha']);
    hold.restore();
    await daemon.api('PUT', '/api/mcp/servers/beta', { config: NO_SUCH_COMMAND });
    await servers.refresh();
    expect(servers.servers.map((s) => s.id)).toEqual(['alpha', 'beta']);
    hold.release();
    await first;
    expect(servers.servers.map((s) => s.id)).toEqual(['alpha', 'beta']);
  });
});

/**
 * Holds back the answers of the paired client's `GET /servers` (asked of the real daemon at once) until
 * `release`, as a slow connection would; `answered` is the daemon's last answer, `restore` stops holding.
 */
function holdListAnswers() {
  const client = useConnectionStore().client!;
  const listServers = client.listServers;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let last: Promise<ServersResponse> | undefined;
  client.listServers = function (this: DaemonClient) {
    const answer = listServers.call(this);
    last = answer;
    return answer.then(async (listed) => {
      await held;
      return listed;
    });
  };
  return {
    release,
    answered: async () => (await last!).servers,
    restore: () => {
      client.listServers = listServers;
    },
  };
}
