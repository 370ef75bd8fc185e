import { mount } from '@vue/test-utils';
import { describe, expect, it } from 'vitest';
import WidgetHostToolbar from '../../extension/widgets/WidgetHostToolbar.vue';
import {
  appsSdkGlobals,
  canonicalLocale,
  changedFields,
  DEFAULT_HOST_CONTEXT,
  hostContextOptions,
  mcpAppContextFields,
  resolveHostContext,
} from '../../extension/widgets/host-context';

describe('host context options', () => {
  it('reads a stored choice field by field, with defaults for anything unknown', () => {
    expect(hostContextOptions(undefined)).toEqual(DEFAULT_HOST_CONTEXT);
    expect(
      hostContextOptions({ theme: 'dark', locale: 'fr-fr', device: 'tablet', safeArea: 'notch' }),
    ).toEqual({
      theme: 'dark',
      locale: 'fr-FR',
      device: 'tablet',
      safeArea: 'notch',
    });
    expect(
      hostContextOptions({ theme: 'sepia', locale: 'not a locale', device: 'watch', safeArea: 5 }),
    ).toEqual(DEFAULT_HOST_CONTEXT);
  });

  it('takes BCP 47 locales in their canonical form and refuses the rest', () => {
    expect(canonicalLocale(' ja-jp ')).toBe('ja-JP');
    expect(canonicalLocale('zh-hant-tw')).toBe('zh-Hant-TW');
    expect(canonicalLocale('')).toBeNull();
    expect(canonicalLocale('en_US!')).toBeNull();
    expect(canonicalLocale('x'.repeat(40))).toBeNull();
  });

  it('resolves the panel theme and the browser language, and a device to its width and input', () => {
    const phone = resolveHostContext(
      { theme: 'panel', locale: '', device: 'mobile', safeArea: 'notch' },
      'dark',
      'en-GB',
    );
    expect(phone).toEqual({
      theme: 'dark',
      locale: 'en-GB',
      device: 'mobile',
      width: 375,
      insets: { top: 47, bottom: 34, left: 0, right: 0 },
      capabilities: { hover: false, touch: true },
    });
    const desktop = resolveHostContext(
      { ...DEFAULT_HOST_CONTEXT, theme: 'light', locale: 'de-DE' },
      'dark',
      'en',
    );
    expect(desktop).toMatchObject({ theme: 'light', locale: 'de-DE', width: null });
    expect(resolveHostContext({ ...DEFAULT_HOST_CONTEXT, device: 'tablet' }, 'light', 'en').width).toBe(768);
  });

  it('gives an Apps-SDK widget its window.openai globals and an MCP App its host context fields', () => {
    const tablet = resolveHostContext(
      { theme: 'dark', locale: 'fr-FR', device: 'tablet', safeArea: 'home-bar' },
      'light',
      'en',
    );
    expect(appsSdkGlobals(tablet)).toEqual({
      theme: 'dark',
      locale: 'fr-FR',
      safeArea: { insets: { top: 0, bottom: 34, left: 0, right: 0 } },
      userAgent: { device: { type: 'tablet' }, capabilities: { hover: false, touch: true } },
    });
    expect(mcpAppContextFields(tablet)).toEqual({
      theme: 'dark',
      locale: 'fr-FR',
      platform: 'mobile',
      deviceCapabilities: { hover: false, touch: true },
      safeAreaInsets: { top: 0, bottom: 34, left: 0, right: 0 },
    });
    const desktop = resolveHostContext(DEFAULT_HOST_CONTEXT, 'light', 'en-US');
    expect(mcpAppContextFields(desktop)).toMatchObject({
      platform: 'web',
      deviceCapabilities: { hover: true },
    });
  });

  it('names only the fields that changed', () => {
    const before = appsSdkGlobals(resolveHostContext(DEFAULT_HOST_CONTEXT, 'light', 'en-US'));
    const after = appsSdkGlobals(
      resolveHostContext({ ...DEFAULT_HOST_CONTEXT, safeArea: 'notch' }, 'light', 'en-US'),
    );
    expect(changedFields(before, after)).toEqual({
      safeArea: { insets: { top: 47, bottom: 34, left: 0, right: 0 } },
    });
    expect(changedFields(before, before)).toEqual({});
  });
});

describe('WidgetHostToolbar', () => {
  function toolbar() {
    return mount(WidgetHostToolbar, {
      props: { options: { ...DEFAULT_HOST_CONTEXT }, browserLocale: 'en-US' },
      slots: { default: '<button data-testid="slot-mode">Inline</button>' },
    });
  }

  it('labels each control and emits the whole choice when one changes', async () => {
    const wrapper = toolbar();
    expect(wrapper.get('[role="toolbar"]').attributes('aria-label')).toBe('Host context');
    expect(wrapper.find('[data-testid="slot-mode"]').exists()).toBe(true);
    const labels = wrapper.findAll('label').map((label) => label.find('span').text());
    expect(labels).toEqual(['Theme', 'Locale', 'Device', 'Safe area']);

    await wrapper.get('[data-testid="widget-host-device"]').setValue('mobile');
    await wrapper.get('[data-testid="widget-host-theme"]').setValue('dark');
    expect(wrapper.emitted('change')).toEqual([
      [{ ...DEFAULT_HOST_CONTEXT, device: 'mobile' }],
      [{ ...DEFAULT_HOST_CONTEXT, theme: 'dark' }],
    ]);
  });

  it('takes a locale on Enter in its canonical form, and says why it refuses one', async () => {
    const wrapper = toolbar();
    const field = wrapper.get('[data-testid="widget-host-locale"]');
    expect(field.attributes('placeholder')).toBe('en-US');
    await field.setValue('pt-br');
    await field.trigger('keydown', { key: 'Enter' });
    expect(wrapper.emitted('change')?.at(-1)).toEqual([{ ...DEFAULT_HOST_CONTEXT, locale: 'pt-BR' }]);
    expect((field.element as HTMLInputElement).value).toBe('pt-BR');
    await wrapper.setProps({ options: { ...DEFAULT_HOST_CONTEXT, locale: 'pt-BR' } });
    const emitted = wrapper.emitted('change')?.length;

    await field.setValue('no such thing!');
    await field.trigger('change');
    const problem = wrapper.get('[data-testid="widget-host-locale-problem"]');
    expect(problem.attributes('role')).toBe('alert');
    expect(problem.text()).toContain('"no such thing!" is not a BCP 47 locale');
    expect(field.attributes('aria-invalid')).toBe('true');
    expect(field.attributes('aria-describedby')).toBe(problem.attributes('id'));
    // Nothing new was chosen.
    expect(wrapper.emitted('change')).toHaveLength(emitted!);
  });
});
