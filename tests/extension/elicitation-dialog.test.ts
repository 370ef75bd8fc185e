import { mount } from '@vue/test-utils';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { ElicitationRequired, JsonObject } from '../../shared/api';
import ElicitationDialog from '../../extension/tools/ElicitationDialog.vue';
import { setPatternWorkerFactory } from '../../extension/validation/pattern-jobs.ts';
import { fakePatternWorker } from './support/fake-pattern-worker.ts';
import { flushPromises } from '@vue/test-utils';

function elicitation(request: JsonObject, requestId = 'req-1'): ElicitationRequired {
  return {
    status: 'elicitation_required',
    kind: 'elicitation',
    executionId: 'exec-1',
    requestId,
    request,
    timestamp: '2026-01-01T00:00:00.000Z',
  };
}

const contactSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name' },
    age: { type: 'integer' },
    newsletter: { type: 'boolean', default: true },
    note: { type: 'string' },
  },
  required: ['name'],
};

function open(props: {
  elicitation: ElicitationRequired;
  queued?: number;
  serverName?: string;
  completedByServer?: boolean;
}) {
  const wrapper = mount(ElicitationDialog, { props, attachTo: document.body });
  onTestFinished(() => wrapper.unmount());
  return wrapper;
}

describe('ElicitationDialog', () => {
  it('opens as a dialog titled with the server message and says who asked', () => {
    const wrapper = open({
      elicitation: elicitation({ message: 'Who are you?', requestedSchema: contactSchema }),
      serverName: 'everything',
    });
    const dialog = wrapper.get('[data-testid="elicitation-dialog"]').element as HTMLDialogElement;
    expect(dialog.tagName).toBe('DIALOG');
    expect(dialog.hasAttribute('open')).toBe(true);
    expect(wrapper.get('[data-testid="elicit-message"]').text()).toBe('Who are you?');
    expect(dialog.getAttribute('aria-labelledby')).toBe(
      wrapper.get('[data-testid="elicit-message"]').attributes('id'),
    );
    expect(wrapper.get('[data-testid="elicit-server"]').text()).toContain('everything');
  });

  it('still opens where the engine has no showModal', () => {
    const prototype = HTMLDialogElement.prototype as unknown as Record<string, unknown>;
    const showModal = prototype.showModal;
    prototype.showModal = undefined;
    onTestFinished(() => {
      prototype.showModal = showModal;
    });
    const wrapper = open({ elicitation: elicitation({ message: 'Hi', requestedSchema: contactSchema }) });
    expect(wrapper.get('[data-testid="elicitation-dialog"]').attributes()).toHaveProperty('open');
  });

  it('counts the elicitations waiting only when there is more than one', () => {
    const one = open({ elicitation: elicitation({ message: 'a', requestedSchema: {} }), queued: 1 });
    expect(one.find('[data-testid="elicit-queue"]').exists()).toBe(false);
    const three = open({ elicitation: elicitation({ message: 'b', requestedSchema: {} }), queued: 3 });
    expect(three.get('[data-testid="elicit-queue"]').text()).toContain('3');
  });

  it('fills the form from the schema defaults', () => {
    const wrapper = open({ elicitation: elicitation({ message: 'Who?', requestedSchema: contactSchema }) });
    expect((wrapper.get('[data-testid="field-newsletter"]').element as HTMLInputElement).checked).toBe(true);
    expect((wrapper.get('[data-testid="field-name"]').element as HTMLInputElement).value).toBe('');
    expect(wrapper.get('label[for="elicit-req-1-name"]').text()).toContain('Name');
  });

  it('holds Accept back while a required field is empty, and says which', async () => {
    const wrapper = open({ elicitation: elicitation({ message: 'Who?', requestedSchema: contactSchema }) });
    const accept = wrapper.get('[data-testid="elicit-accept"]');
    expect(accept.attributes()).toHaveProperty('disabled');
    expect(wrapper.get('[data-testid="elicit-missing"]').text()).toContain('name');
    await wrapper.get('form').trigger('submit');
    expect(wrapper.emitted('respond')).toBeUndefined();

    await wrapper.get('[data-testid="field-name"]').setValue('Ada');
    expect(accept.attributes()).not.toHaveProperty('disabled');
    expect(wrapper.find('[data-testid="elicit-missing"]').exists()).toBe(false);
  });

  it('calls its JSON the answer, and while it cannot be read says so and nothing of what is missing', async () => {
    const wrapper = open({ elicitation: elicitation({ message: 'Who?', requestedSchema: contactSchema }) });
    await wrapper.get('[data-testid="mode-json"]').trigger('click');
    expect(wrapper.get('label[for="elicit-req-1-raw-json"]').text()).toBe(
      'The answer as a JSON object, exactly as sent',
    );
    await wrapper.get('[data-testid="raw-json"]').setValue('{"name": "Ada", oops');
    await flushPromises();
    expect(wrapper.get('[data-testid="elicit-unreadable"]').text()).toBe(
      'The JSON of the answer cannot be read: fix it first.',
    );
    expect(wrapper.find('[data-testid="elicit-missing"]').exists()).toBe(false);
    expect(wrapper.get('[data-testid="elicit-accept"]').attributes()).toHaveProperty('disabled');
  });

  it('accepts with the parameters of the form, optional empty fields left out', async () => {
    const wrapper = open({ elicitation: elicitation({ message: 'Who?', requestedSchema: contactSchema }) });
    await wrapper.get('[data-testid="field-name"]').setValue('Ada');
    await wrapper.get('[data-testid="field-age"]').setValue('36');
    await wrapper.get('[data-testid="elicit-accept"]').trigger('click');
    expect(wrapper.emitted('respond')).toEqual([
      [{ action: 'accept', content: { name: 'Ada', age: 36, newsletter: true } }],
    ]);
  });

  it('sends no pick or optional checkbox the user left alone, unless the schema gives it a default', async () => {
    const requestedSchema = {
      type: 'object',
      properties: {
        host: { type: 'string' },
        region: { type: 'string', enum: ['eu-west', 'us-east'] },
        confirm: { type: 'boolean' },
        tier: { type: 'string', enum: ['free', 'paid'], default: 'paid' },
        plan: { type: 'string', enum: ['a', 'b'] },
      },
      required: ['host', 'plan'],
    };
    const wrapper = open({ elicitation: elicitation({ message: 'Where?', requestedSchema }) });
    expect((wrapper.get('[data-testid="field-region"]').element as HTMLSelectElement).value).toBe('');
    // Unset, shown as neither true nor false until the user clicks it.
    const confirm = wrapper.get('[data-testid="field-confirm"]').element as HTMLInputElement;
    expect([confirm.checked, confirm.indeterminate]).toEqual([false, true]);
    expect(wrapper.get('[data-testid="unset-confirm"]').text()).toBe('not set');
    await wrapper.get('[data-testid="field-host"]').setValue('prod.example.com');
    // A required pick list without a default must be picked: Accept waits for it.
    expect(wrapper.get('[data-testid="elicit-missing"]').text()).toBe('Required: plan');
    await wrapper.get('[data-testid="field-plan"]').setValue('b');
    await wrapper.get('[data-testid="elicit-accept"]').trigger('click');
    expect(wrapper.emitted('respond')).toEqual([
      [{ action: 'accept', content: { host: 'prod.example.com', tier: 'paid', plan: 'b' } }],
    ]);
  });

  it('sets an unset checkbox on the first click, and then to false on the next', async () => {
    const requestedSchema = { type: 'object', properties: { confirm: { type: 'boolean' } } };
    const wrapper = open({ elicitation: elicitation({ message: 'Sure?', requestedSchema }) });
    const box = wrapper.get('[data-testid="field-confirm"]');
    await box.setValue(true);
    expect((box.element as HTMLInputElement).indeterminate).toBe(false);
    expect(wrapper.find('[data-testid="unset-confirm"]').exists()).toBe(false);
    await box.setValue(false);
    expect((box.element as HTMLInputElement).indeterminate).toBe(false);
    await wrapper.get('[data-testid="elicit-accept"]').trigger('click');
    expect(wrapper.emitted('respond')).toEqual([[{ action: 'accept', content: { confirm: false } }]]);
  });

  it('finds a default behind $ref and inside objects, and unsets the picks nested without one', async () => {
    const requestedSchema = {
      type: 'object',
      $defs: { Region: { type: 'string', enum: ['eu', 'us'], default: 'us' } },
      properties: {
        region: { $ref: '#/$defs/Region' },
        options: {
          type: 'object',
          properties: { fast: { type: 'boolean' }, size: { type: 'string', enum: ['s', 'm'] } },
        },
      },
    };
    const wrapper = open({ elicitation: elicitation({ message: 'Where?', requestedSchema }) });
    await wrapper.get('[data-testid="elicit-accept"]').trigger('click');
    expect(wrapper.emitted('respond')).toEqual([[{ action: 'accept', content: { region: 'us' } }]]);
  });

  it('declines and cancels without content', async () => {
    const declining = open({ elicitation: elicitation({ message: 'Who?', requestedSchema: contactSchema }) });
    await declining.get('[data-testid="elicit-decline"]').trigger('click');
    expect(declining.emitted('respond')).toEqual([[{ action: 'decline' }]]);

    const cancelling = open({
      elicitation: elicitation({ message: 'Who?', requestedSchema: contactSchema }),
    });
    await cancelling.get('[data-testid="elicit-cancel"]').trigger('click');
    expect(cancelling.emitted('respond')).toEqual([[{ action: 'cancel' }]]);
  });

  it('cancels on Escape, once even when the dialog also fires its cancel event', async () => {
    const wrapper = open({ elicitation: elicitation({ message: 'Who?', requestedSchema: contactSchema }) });
    await wrapper.get('[data-testid="field-name"]').trigger('keydown', { key: 'Escape' });
    await wrapper.get('[data-testid="elicitation-dialog"]').trigger('cancel');
    expect(wrapper.emitted('respond')).toEqual([[{ action: 'cancel' }]]);
  });

  it('answers a new elicitation afresh', async () => {
    const wrapper = open({ elicitation: elicitation({ message: 'First', requestedSchema: contactSchema }) });
    await wrapper.get('[data-testid="field-name"]').setValue('Ada');
    await wrapper.get('[data-testid="elicit-decline"]').trigger('click');
    await wrapper.setProps({
      elicitation: elicitation({ message: 'Second', requestedSchema: contactSchema }, 'req-2'),
    });
    expect((wrapper.get('[data-testid="field-name"]').element as HTMLInputElement).value).toBe('');
    await wrapper.get('[data-testid="elicit-cancel"]').trigger('click');
    expect(wrapper.emitted('respond')).toEqual([[{ action: 'decline' }], [{ action: 'cancel' }]]);
  });

  it('offers a web URL as a link that opens in a new, unrelated tab', async () => {
    const url = 'https://example.com/authorize?state=1';
    const wrapper = open({
      elicitation: elicitation({ mode: 'url', message: 'Sign in', url, elicitationId: 'e' }),
    });
    for (const testid of ['elicit-url', 'elicit-open']) {
      const link = wrapper.get(`[data-testid="${testid}"]`);
      expect(link.element.tagName).toBe('A');
      expect(link.attributes('href')).toBe(url);
      expect(link.attributes('target')).toBe('_blank');
      expect(link.attributes('rel')).toBe('noopener noreferrer');
    }
    expect(wrapper.find('[data-testid="field-name"]').exists()).toBe(false);
    await wrapper.get('[data-testid="elicit-accept"]').trigger('click');
    expect(wrapper.emitted('respond')).toEqual([[{ action: 'accept', content: {} }]]);
  });

  it('shows where a URL goes: its origin, not a user name made to look like one, and the message marked', () => {
    // Shown as it is, an override makes this read "https://accounts.google.com/evil-example.com@".
    const url = 'https://accounts.google.com\u202E@moc.elpmaxe-live/';
    const wrapper = open({
      elicitation: elicitation({ mode: 'url', message: 'Sign in to \u202Eelgoog', url, elicitationId: 'u' }),
    });
    const link = wrapper.get('[data-testid="elicit-url"]');
    expect(link.attributes('href')).toBe(url);
    expect(link.get('strong').text()).toBe('https://moc.elpmaxe-live');
    expect(link.text()).toBe('https://moc.elpmaxe-live/');
    expect(wrapper.get('[data-testid="elicit-url-userinfo"]').text()).toBe(
      'It starts with “accounts.google.com%E2%80%AE@”: what comes before the @ is a login, not where it goes. It goes to https://moc.elpmaxe-live.',
    );
    expect(wrapper.get('[data-testid="elicit-message"]').text()).toBe('Sign in to [RLO]elgoog');
  });

  it('says a URL of a -32042 error is a step after which the call is retried', async () => {
    const request = { mode: 'url', message: 'Connect', url: 'https://example.com/c', elicitationId: 'c-1' };
    const wrapper = open({
      elicitation: { ...elicitation(request), retry: { round: 2, maxRounds: 3, index: 1, count: 1 } },
    });
    const retry = wrapper.get('[data-testid="elicit-retry"]').text();
    expect(retry).toContain('then choose Done, and the call is made again (retry 2 of 3)');
    expect(retry).not.toContain('Link 1 of 1');
    expect(wrapper.get('[data-testid="elicit-accept"]').text()).toBe('Done, retry the call');
    expect(wrapper.find('[data-testid="elicit-completed"]').exists()).toBe(false);
    await wrapper.setProps({ completedByServer: true });
    expect(wrapper.get('[data-testid="elicit-completed"]').text()).toBe('Completed by the server.');
    await wrapper.get('[data-testid="elicit-accept"]').trigger('click');
    expect(wrapper.emitted('respond')).toEqual([[{ action: 'accept', content: {} }]]);
  });

  it('counts the URLs of a -32042 error and moves on to the next one before retrying', () => {
    const request = { mode: 'url', message: 'First', url: 'https://example.com/1', elicitationId: '1' };
    const wrapper = open({
      elicitation: { ...elicitation(request), retry: { round: 1, maxRounds: 3, index: 1, count: 2 } },
    });
    const text = wrapper.get('[data-testid="elicit-retry"]').text().replace(/\s+/g, ' ');
    expect(text).toMatch(/^Link 1 of 2\./);
    // Done leads to the next link first: the call is made again only after the last.
    expect(text).toContain('then choose Done for the next link; once all are done, the call is made again');
    expect(text).not.toContain('choose Done, and the call is made again');
    expect(wrapper.get('[data-testid="elicit-accept"]').text()).toBe('Done, next link');
  });

  it('keeps Accept and says nothing of retrying for a URL the server asked about itself', () => {
    const request = { mode: 'url', message: 'Sign in', url: 'https://example.com/s', elicitationId: 's' };
    const wrapper = open({ elicitation: elicitation(request), completedByServer: true });
    expect(wrapper.find('[data-testid="elicit-retry"]').exists()).toBe(false);
    expect(wrapper.get('[data-testid="elicit-accept"]').text()).toBe('Accept');
    expect(wrapper.find('[data-testid="elicit-completed"]').exists()).toBe(true);
  });

  it('shows a URL of another scheme as text only', () => {
    const url = 'javascript:alert(1)';
    const wrapper = open({ elicitation: elicitation({ mode: 'url', message: 'Click', url }) });
    expect(wrapper.find('a').exists()).toBe(false);
    expect(wrapper.find('[data-testid="elicit-open"]').exists()).toBe(false);
    expect(wrapper.get('[data-testid="elicit-url"]').text()).toBe(url);
  });

  it('never renders the server message as HTML', () => {
    const message = '<b>bold</b><img src=x onerror="alert(1)">';
    const wrapper = open({ elicitation: elicitation({ message, requestedSchema: {} }) });
    expect(wrapper.get('[data-testid="elicit-message"]').text()).toBe(message);
    expect(wrapper.find('[data-testid="elicit-message"] b').exists()).toBe(false);
    expect(wrapper.find('img').exists()).toBe(false);
  });

  describe('checks the answer against requestedSchema before sending', () => {
    const schema = {
      type: 'object',
      properties: {
        email: { type: 'string', format: 'email', title: 'E-mail' },
        age: { type: 'integer', minimum: 18, maximum: 120 },
        nick: { type: 'string', minLength: 2, maxLength: 8 },
        plan: {
          type: 'string',
          title: 'Plan',
          oneOf: [
            { const: 'free', title: 'Free tier' },
            { const: 'pro', title: 'Professional' },
          ],
        },
        legacy: { type: 'string', enum: ['x', 'y'], enumNames: ['Ex', 'Why'] },
        toppings: {
          type: 'array',
          title: 'Toppings',
          minItems: 1,
          maxItems: 2,
          items: {
            anyOf: [
              { const: 'ham', title: 'Ham' },
              { const: 'egg', title: 'Egg' },
              { const: 'kale', title: 'Kale' },
            ],
          },
        },
        colors: { type: 'array', items: { type: 'string', enum: ['red', 'blue'] } },
        start: { type: 'string', format: 'date-time' },
      },
      required: ['email', 'plan', 'toppings'],
    };

    it('shows titled single- and multi-select enums as pick lists of their titles', () => {
      const wrapper = open({ elicitation: elicitation({ message: 'Order', requestedSchema: schema }) });
      expect(
        wrapper
          .get('[data-testid="field-plan"]')
          .findAll('option')
          .map((o) => o.text()),
      ).toEqual(['—', 'Free tier', 'Professional']);
      expect(
        wrapper
          .get('[data-testid="field-legacy"]')
          .findAll('option')
          .map((o) => o.text()),
      ).toEqual(['—', 'Ex', 'Why']);
      expect(
        wrapper
          .get('[data-testid="field-toppings"]')
          .findAll('label')
          .map((l) => l.text()),
      ).toEqual(['Ham', 'Egg', 'Kale']);
      expect(
        wrapper
          .get('[data-testid="field-colors"]')
          .findAll('label')
          .map((l) => l.text()),
      ).toEqual(['red', 'blue']);
    });

    it('blocks Accept on invalid values, shows each at its field and says why', async () => {
      const wrapper = open({ elicitation: elicitation({ message: 'Order', requestedSchema: schema }) });
      const accept = wrapper.get('[data-testid="elicit-accept"]');
      await wrapper.get('[data-testid="field-email"]').setValue('not-an-address');
      await wrapper.get('[data-testid="field-age"]').setValue('12');
      await wrapper.get('[data-testid="field-nick"]').setValue('x');
      await wrapper.get('[data-testid="option-toppings-0"]').setValue(true);
      await wrapper.get('[data-testid="option-toppings-1"]').setValue(true);
      await wrapper.get('[data-testid="option-toppings-2"]').setValue(true);

      expect(accept.attributes()).toHaveProperty('disabled');
      expect(wrapper.get('[data-testid="error-email"]').text()).toBe('Not an e-mail address');
      expect(wrapper.get('[data-testid="field-email"]').attributes('aria-invalid')).toBe('true');
      expect(wrapper.get('[data-testid="error-age"]').text()).toBe('Must be at least 18');
      expect(wrapper.get('[data-testid="error-nick"]').text()).toBe('At least 2 characters');
      expect(wrapper.get('[data-testid="error-toppings"]').text()).toBe('Pick at most 2');
      const blocked = wrapper.get('[data-testid="elicit-blocked"]');
      expect(accept.attributes('aria-describedby')).toBe(blocked.attributes('id'));
      expect(blocked.text()).toContain("Can't accept yet");
      expect(wrapper.findAll('[data-testid="elicit-invalid"]').map((e) => e.text())).toEqual([
        'email: Not an e-mail address',
        'age: Must be at least 18',
        'nick: At least 2 characters',
        'toppings: Pick at most 2',
      ]);
      await wrapper.get('form').trigger('submit');
      expect(wrapper.emitted('respond')).toBeUndefined();

      await wrapper.get('[data-testid="field-email"]').setValue('ada@example.com');
      await wrapper.get('[data-testid="field-age"]').setValue('36');
      await wrapper.get('[data-testid="field-nick"]').setValue('ada');
      await wrapper.get('[data-testid="option-toppings-0"]').setValue(false);
      expect(wrapper.find('[data-testid="error-email"]').exists()).toBe(false);
      // The plan, required and without a default, is not picked for the user: Accept waits for it.
      expect(accept.attributes()).toHaveProperty('disabled');
      await wrapper.get('[data-testid="field-plan"]').setValue('pro');
      expect(accept.attributes()).not.toHaveProperty('disabled');
      await wrapper.get('[data-testid="field-start"]').setValue('2026-05-04T09:15');
      await accept.trigger('click');
      const [[response]] = wrapper.emitted('respond') as [
        [{ action: string; content: Record<string, unknown> }],
      ];
      expect(response.action).toBe('accept');
      expect(response.content).toMatchObject({
        email: 'ada@example.com',
        age: 36,
        nick: 'ada',
        plan: 'pro',
        toppings: ['egg', 'kale'],
      });
      expect(response.content.start).toMatch(/^2026-05-04T09:15:00(Z|[+-]\d{2}:\d{2})$/);
      expect(Object.keys(response.content)).not.toContain('colors');
    });

    it('names the required multi-select left empty', () => {
      const wrapper = open({ elicitation: elicitation({ message: 'Order', requestedSchema: schema }) });
      expect(wrapper.get('[data-testid="elicit-missing"]').text()).toBe('Required: email, plan');
      expect(wrapper.findAll('[data-testid="elicit-invalid"]').map((e) => e.text())).toEqual([
        'toppings: Pick at least 1',
      ]);
    });
  });
});

describe('a server pattern that backtracks catastrophically', { timeout: 10_000 }, () => {
  it('opens anyway and shows the pattern as not checked past the time budget, without refusing Accept', async () => {
    setPatternWorkerFactory(() => fakePatternWorker(300));
    onTestFinished(() => setPatternWorkerFactory(undefined));
    const wrapper = open({
      elicitation: elicitation({
        message: 'Code?',
        requestedSchema: {
          type: 'object',
          properties: { code: { type: 'string', pattern: '^(a|a)*$', default: 'a'.repeat(40) + '!' } },
        },
      }),
    });
    expect(wrapper.text()).toContain('pattern being checked…');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await flushPromises();
    expect(wrapper.text()).toContain('pattern not checked: it took longer than 1,000 ms');
  });
});
