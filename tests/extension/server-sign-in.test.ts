/** The panel's minimal OAuth step: a server that asks for a sign-in offers a "Sign in" link to its authorization URL. */
import { mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import ServerFailure from '../../extension/servers/ServerFailure.vue';
import type { ServerRecord } from '../../shared/servers';

const AUTHORIZATION_URL = 'https://auth.example.com/authorize?response_type=code&state=abc';

function server(overrides: Partial<ServerRecord>): ServerRecord {
  return {
    id: 'remote',
    name: 'remote',
    config: { transport: 'http', url: 'https://mcp.example.com/mcp', auth: {} },
    status: 'auth_required',
    lastError: 'The server asks you to sign in: open the authorization URL in a browser.',
    auth: { state: 'required', authorizationUrl: AUTHORIZATION_URL },
    ...overrides,
  };
}

function show(record: ServerRecord) {
  const wrapper = mount(ServerFailure, { props: { server: record } });
  onTestFinished(() => wrapper.unmount());
  return wrapper;
}

describe('a server that asks for a sign-in', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('says so and links "Sign in" to the authorization URL in a new tab', () => {
    const wrapper = show(server({}));
    expect(wrapper.get('#server-failure-title').text()).toBe('remote asks you to sign in');
    const link = wrapper.get('[data-testid="server-failure-sign-in"]');
    expect(link.text()).toBe('Sign in');
    expect(link.attributes()).toMatchObject({
      href: AUTHORIZATION_URL,
      target: '_blank',
      rel: 'noopener noreferrer',
    });
  });

  it('offers no link to an authorization URL that is not http(s)', () => {
    const wrapper = show(server({ auth: { state: 'required', authorizationUrl: 'javascript:alert(1)' } }));
    expect(wrapper.find('[data-testid="server-failure-sign-in"]').exists()).toBe(false);
  });

  it('a server in error offers no sign-in', () => {
    const wrapper = show(
      server({ status: 'error', lastError: 'connection refused', auth: { state: 'none' } }),
    );
    expect(wrapper.get('#server-failure-title').text()).toBe('remote could not connect');
    expect(wrapper.find('[data-testid="server-failure-sign-in"]').exists()).toBe(false);
  });
});
