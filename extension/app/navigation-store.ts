import { defineStore } from 'pinia';
import { ref, watch } from 'vue';
import { useResourcesStore } from '../resources/resources-store';
import { useServersStore } from '../servers/servers-store';
import { useToolsStore } from '../tools/tools-store';

export type Tab = 'tools' | 'resources' | 'prompts' | 'server' | 'auth' | 'logs' | 'page';

/** What the panel's address asks to show first: `?server=ID&tool=NAME` or `?server=ID&resource=URI`. */
export interface DeepLink {
  server?: string;
  tool?: string;
  resource?: string;
}

export function readDeepLink(search: string): DeepLink {
  const params = new URLSearchParams(search);
  const pick = (key: string): string | undefined => params.get(key) || undefined;
  return { server: pick('server'), tool: pick('tool'), resource: pick('resource') };
}

/** The panel page's address showing that server's tool or resource (what the popup opens). */
export function deepLinkUrl(base: string, link: DeepLink): string {
  const params = new URLSearchParams();
  for (const key of ['server', 'tool', 'resource'] as const) {
    const value = link[key];
    if (value) params.set(key, value);
  }
  return `${base}?${params.toString()}`;
}

/** The panel's open view, and the moves between views: a resource link opens its resource. */
export const useNavigationStore = defineStore('navigation', () => {
  const tab = ref<Tab>('tools');
  const servers = useServersStore();

  /** Shows the URI in the Resources view of the selected server and reads it. */
  function openResource(uri: string, serverId = servers.selectedId): void {
    if (!serverId) return;
    servers.selectedId = serverId;
    void useResourcesStore().open(serverId, uri);
    tab.value = 'resources';
  }

  /** Shows the server's tool in the Tools view (selected once the server has listed it). */
  function openTool(serverId: string, name: string): void {
    servers.selectedId = serverId;
    useToolsStore().selectWhenListed(serverId, name);
    tab.value = 'tools';
  }

  /** Follows the page's deep link once the server it names is in the list. */
  function follow(link: DeepLink): void {
    const { server, tool, resource } = link;
    if (!server) return;
    let done = false;
    let stop: (() => void) | undefined = undefined;
    stop = watch(
      () => servers.servers.map((s) => s.id),
      (ids) => {
        if (done || !ids.includes(server)) return;
        done = true;
        stop?.();
        if (resource) openResource(resource, server);
        else if (tool) openTool(server, tool);
        else servers.selectedId = server;
      },
      { immediate: true },
    );
    if (done) stop();
  }

  follow(readDeepLink(typeof location === 'undefined' ? '' : location.search));

  return { tab, openResource, openTool, follow };
});
