import type { Page } from 'puppeteer';
import { byTestId, waitForText } from './dom.ts';

/** One row of the Tasks list. */
export const ROW = byTestId('task-row');

/** The Tasks list under a tool (extension/tools/TasksPanel.vue) and the "Run as task" option. */
export class TasksList {
  constructor(readonly page: Page) {}

  /** The selected tool's task support as the option shows it (`optional`, `required`), or null. */
  async support(): Promise<string | null> {
    const option = await this.page.$(byTestId('task-option'));
    return option ? option.evaluate((el) => el.getAttribute('data-support')) : null;
  }

  /** The "Run as task" checkbox: whether it is ticked and whether it may be changed. */
  checkbox(): Promise<{ checked: boolean; disabled: boolean }> {
    return this.page.$eval(byTestId('run-as-task'), (el) => ({
      checked: (el as HTMLInputElement).checked,
      disabled: (el as HTMLInputElement).disabled,
    }));
  }

  async tickRunAsTask(): Promise<void> {
    await this.page.locator(byTestId('run-as-task')).click();
    await this.page.waitForFunction(
      (sel: string) => document.querySelector<HTMLInputElement>(sel)?.checked === true,
      {},
      byTestId('run-as-task'),
    );
  }

  /** Waits for a listed task in `status`; returns its id. */
  async waitForStatus(status: string, not: string[] = []): Promise<string> {
    const handle = await this.page.waitForFunction(
      (sel: string, wanted: string, skip: string[]) =>
        Array.from(document.querySelectorAll<HTMLElement>(sel))
          .find((row) => row.dataset.status === wanted && !skip.includes(row.dataset.taskId ?? ''))
          ?.getAttribute('data-task-id'),
      {},
      ROW,
      status,
      not,
    );
    return (await handle.jsonValue()) as string;
  }

  /** The listed tasks' ids and statuses, newest first. */
  rows(): Promise<Array<{ taskId: string; status: string }>> {
    return this.page.$$eval(ROW, (rows) =>
      rows.map((row) => ({
        taskId: (row as HTMLElement).dataset.taskId ?? '',
        status: (row as HTMLElement).dataset.status ?? '',
      })),
    );
  }

  private row(taskId: string): string {
    return `${ROW}[data-task-id="${taskId}"]`;
  }

  /** Presses the task's Result button and waits for the result view to contain `text`. */
  async result(taskId: string, text: string): Promise<string> {
    await this.page.locator(`${this.row(taskId)} ${byTestId('task-result')}`).click();
    return waitForText(this.page, byTestId('task-result-view'), text);
  }

  async cancel(taskId: string): Promise<void> {
    await this.page.locator(`${this.row(taskId)} ${byTestId('task-cancel')}`).click();
  }
}
