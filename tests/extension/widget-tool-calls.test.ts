import { mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { describe, expect, it } from 'vitest';
import { defineComponent, h } from 'vue';
import type { ServerRecord } from '../../shared/servers';
import { useServersStore } from '../../extension/servers/servers-store';
import { useWidgetToolCalls } from '../../extension/widgets/widget-tool-calls';

/** A server record with only what the widget's dialog reads. */
const server = (id: string, era: ServerRecord['era']): ServerRecord =>
  ({ id, name: `${id} server`, status: 'connected', era }) as ServerRecord;

/** The composable as a widget component uses it, for the widget's server `id`. */
function widgetCalls(id: string) {
  let calls: ReturnType<typeof useWidgetToolCalls> | undefined;
  mount(
    defineComponent({
      setup() {
        calls = useWidgetToolCalls(() => id);
        return () => h('div');
      },
    }),
  );
  return calls as ReturnType<typeof useWidgetToolCalls>;
}

describe("a widget's questions", () => {
  it("name the widget's server and its era, so a sampling request is marked deprecated on a modern one", () => {
    setActivePinia(createPinia());
    const servers = useServersStore();
    servers.servers = [server('apps', 'modern'), server('other', 'legacy')];
    const calls = widgetCalls('apps');
    expect(calls.serverName.value).toBe('apps server');
    expect(calls.serverEra.value).toBe('modern');
    // Connected again at the other era, the dialog follows.
    servers.servers = [server('apps', 'legacy')];
    expect(calls.serverEra.value).toBe('legacy');
    // A server the panel does not know is named by its id, with no era.
    const unknown = widgetCalls('gone');
    expect(unknown.serverName.value).toBe('gone');
    expect(unknown.serverEra.value).toBeUndefined();
  });
});
