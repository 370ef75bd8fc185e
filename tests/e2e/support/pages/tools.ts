/**
 * The Tools view (extension/tools/ToolsView.vue): the tool list, the form generated from the selected
 * tool's input schema, Run, the run's status and progress, and its result.
 */
import type { ElementHandle, Page } from 'puppeteer';
import { byTestId, fresh, markStale, waitForText } from './dom.ts';

/** The tool's own form, not the elicitation dialog's (both name their inputs `field-<name>`). */
const TOOL_FORM = 'section.split-detail';
const RESULT = byTestId('tool-result');

export class ToolsView {
  constructor(readonly page: Page) {}

  /** The names of the listed tools, once the list has loaded. */
  async names(): Promise<string[]> {
    await this.page.waitForSelector('[data-testid^="tool-"][role="option"]');
    return this.page.$$eval('[data-testid^="tool-"][role="option"] .mono', (els) =>
      els.map((el) => (el as HTMLElement).innerText.trim()),
    );
  }

  /** Clicks the listed tool and waits for its form. */
  async select(name: string): Promise<void> {
    await this.page.locator(byTestId(`tool-${name}`)).click();
    await waitForText(this.page, byTestId('tool-title'), name, true);
  }

  /** The name of the tool shown, once it is `name` (as after loading a saved request). */
  async waitForSelected(name: string): Promise<void> {
    await this.page.waitForFunction(
      (sel: string, wanted: string) => document.querySelector(sel)?.textContent === wanted,
      {},
      byTestId('tool-title'),
      name,
    );
  }

  /** The selected tool's display title, shown above its name. */
  displayTitle(): Promise<string | null> {
    return this.page.$eval(byTestId('tool-display-title'), (el) => el.textContent);
  }

  /** How the list names the tool: its title and its name. */
  listedName(name: string): Promise<string> {
    return this.page.$eval(`${byTestId(`tool-${name}`)} .tool-name`, (el) => (el as HTMLElement).innerText);
  }

  /** The selected tool's annotation hints, as their badges read. */
  hintBadges(): Promise<Array<string | null>> {
    return this.page.$$eval(`${byTestId('tool-hints')} .badge`, (els) => els.map((el) => el.textContent));
  }

  /** The explanation the badge of `hint` (`readOnly`, `destructive`, …) carries as its title. */
  hintTitle(hint: string): Promise<string | null> {
    return this.page.$eval(byTestId(`hint-${hint}`), (el) => el.getAttribute('title'));
  }

  /** Opens the hints' explanations with the keyboard and waits for them to contain `text`. */
  async openHintsByKeyboard(text: string): Promise<string> {
    await this.page.focus(`${byTestId('tool-hints')} summary`);
    await this.page.keyboard.press('Enter');
    return waitForText(this.page, `${byTestId('tool-hints')} ul`, text);
  }

  /** The selector of the tool form's element `testId` (a field is `field-<path>`). */
  inForm(testId: string): string {
    return `${TOOL_FORM} ${byTestId(testId)}`;
  }

  /** The selector of the form's field for the parameter at `path`. */
  field(path: string): string {
    return this.inForm(`field-${path}`);
  }

  /** Types into (or picks in) the generated form's field for the parameter at `path`. */
  async fill(path: string, value: string): Promise<void> {
    await this.page.locator(this.field(path)).fill(value);
  }

  async fieldValue(path: string): Promise<string> {
    const selector = this.field(path);
    await this.page.waitForSelector(selector);
    return this.page.$eval(selector, (el) => (el as HTMLInputElement).value);
  }

  /** Waits for the note under the field at `path` that says what is sent for it (`Sent as …`). */
  sentAs(path: string): Promise<string> {
    return waitForText(this.page, this.inForm(`sent-${path}`), 'Sent as');
  }

  /** Switches the form to its JSON view and returns the JSON it holds, parsed. */
  async showJson(): Promise<unknown> {
    await this.page.locator(this.inForm('mode-json')).click();
    return this.page.$eval(this.inForm('raw-json'), (el) => JSON.parse((el as HTMLTextAreaElement).value));
  }

  /** Switches the form back from its JSON view to its fields. */
  async showForm(): Promise<void> {
    await this.page.locator(this.inForm('mode-form')).click();
  }

  /** Presses Run. The result shown before is marked stale so that `result()` waits for the new one. */
  async run(): Promise<void> {
    await markStale(this.page, RESULT);
    await this.page.locator(byTestId('tool-run')).click();
  }

  /** The text of the result of the last `run()`, once it is shown. */
  async result(): Promise<string> {
    const handle = await this.page.waitForSelector(fresh(RESULT));
    if (!handle) throw new Error('no tool result');
    return handle.evaluate((el) => (el as HTMLElement).innerText);
  }

  /** Waits for a result that contains `text`. */
  async resultWith(text: string): Promise<string> {
    await this.result();
    return waitForText(this.page, fresh(RESULT), text);
  }

  /** Runs server-everything's `echo` with `message` through its form; answers the result, once it echoes. */
  async echo(message: string): Promise<string> {
    await this.select('echo');
    await this.fill('message', message);
    await this.run();
    return this.resultWith(`Echo: ${message}`);
  }

  /** Waits until the result says its structured content is valid against the tool's output schema. */
  async waitForValidationOk(): Promise<void> {
    await this.page.waitForSelector(`${RESULT} ${byTestId('validation-ok')}`);
  }

  /** The result's structured content, parsed. */
  async structuredContent(): Promise<unknown> {
    return JSON.parse(await this.page.$eval(byTestId('structured-content'), (el) => el.textContent ?? ''));
  }

  /** The resource links of the result shown: the element each is and the URI it names. */
  resourceLinks(): Promise<Array<{ tag: string; uri: string | undefined }>> {
    return this.page.$$eval(`${RESULT} ${byTestId('resource-link-open')}`, (els) =>
      els.map((el) => ({ tag: el.tagName, uri: el.textContent?.trim() })),
    );
  }

  /** Clicks the result's resource link at `index`. */
  async openResourceLink(index: number): Promise<void> {
    const links = await this.page.$$(`${RESULT} ${byTestId('resource-link-open')}`);
    const link = links[index];
    if (!link) throw new Error(`the result has ${links.length} resource links, none at ${index}`);
    await link.click();
  }

  /** The result's image, once the browser has loaded it. */
  async image(): Promise<ElementHandle<HTMLImageElement>> {
    const image = await this.page.waitForSelector(`${RESULT} ${byTestId('content-image')} img`);
    if (!image) throw new Error('no image in the result');
    await this.page.waitForFunction((img) => (img as HTMLImageElement).complete, {}, image);
    return image as ElementHandle<HTMLImageElement>;
  }

  /** Whether a result is shown for the selected tool. */
  async hasResult(): Promise<boolean> {
    return (await this.page.$(RESULT)) !== null;
  }

  /** The run status's state (`running`, `elicitation`, `completed`, …). */
  runState(): Promise<string | null> {
    return this.page.$eval(byTestId('run-status'), (el) => el.getAttribute('data-state'));
  }

  /** Waits for the running call's progress text to contain `text` (as `2 / 5`); returns the whole text. */
  progressText(text: string): Promise<string> {
    return waitForText(this.page, byTestId('run-progress-text'), text);
  }

  /** The progress bar's value and maximum. */
  progressBar(): Promise<{ value: number; max: number }> {
    return this.page.$eval(byTestId('run-progress'), (el) => ({
      value: (el as HTMLProgressElement).value,
      max: (el as HTMLProgressElement).max,
    }));
  }

  /** Whether the progress bar is shown. */
  async hasProgress(): Promise<boolean> {
    return (await this.page.$(byTestId('run-progress'))) !== null;
  }
}
