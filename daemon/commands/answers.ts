/**
 * Answers to a server's elicitations in a script: taken in order from `--answer` (JSON, or a JSON file;
 * a list gives several), and `decline` once they run out. Each question and its answer are told on
 * stderr; the answer's values are not (a form may ask for a password), only its field names.
 */
import { readFileSync } from 'node:fs';
import type { ElicitationResponse, JsonObject } from '../../shared/api.ts';
import { usageError } from './failure.ts';
import { terminalSafe } from './terminal-safe.ts';

const ACTIONS = new Set(['accept', 'decline', 'cancel']);

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkAnswer(value: unknown, where: string): ElicitationResponse {
  if (!isObject(value) || typeof value.action !== 'string' || !ACTIONS.has(value.action)) {
    throw usageError(`${where}: each answer is {"action":"accept"|"decline"|"cancel","content":{…}}`);
  }
  if (value.content !== undefined && !isObject(value.content)) {
    throw usageError(`${where}: "content" must be an object of the form's fields`);
  }
  return value as unknown as ElicitationResponse;
}

/** The answers given with `--answer`: each value inline JSON, or the name of a JSON file. */
export function readAnswers(values: readonly string[] = []): ElicitationResponse[] {
  return values.flatMap((value) => {
    const inline = /^\s*[[{]/.test(value);
    let text = value;
    if (!inline) {
      try {
        text = readFileSync(value, 'utf8');
      } catch {
        throw usageError(
          `--answer ${value}: neither JSON nor a readable file; give '{"action":"accept","content":{…}}' or FILE.json`,
        );
      }
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw usageError(
        `--answer ${inline ? '' : `${value}: `}is not JSON; give '{"action":"accept","content":{…}}'`,
      );
    }
    const where = inline ? '--answer' : `--answer ${value}`;
    return Array.isArray(json) ? json.map((item) => checkAnswer(item, where)) : [checkAnswer(json, where)];
  });
}

/** Hands out the answers in order and reports each question on stderr. */
export class Answerer {
  private readonly queue: ElicitationResponse[];

  constructor(answers: ElicitationResponse[]) {
    this.queue = [...answers];
  }

  /** The answer to an elicitation/create request (`params` as the server sent them). */
  answer(params: JsonObject): ElicitationResponse {
    const given = this.queue.shift();
    const answer: ElicitationResponse = given ?? { action: 'decline' };
    const message = typeof params.message === 'string' ? params.message : '';
    const schema = isObject(params.requestedSchema) ? params.requestedSchema : undefined;
    const fields = isObject(schema?.properties) ? Object.keys(schema.properties) : [];
    const asked = `the server asks "${message}"${fields.length ? ` (fields: ${fields.join(', ')})` : ''}`;
    const content = isObject(answer.content)
      ? ` with ${Object.keys(answer.content).join(', ') || 'no fields'}`
      : '';
    const why = given ? '' : ' (no --answer left for it)';
    console.error(terminalSafe(`elicitation: ${asked}; answered ${answer.action}${content}${why}`));
    return answer;
  }

  /** Sampling needs a person or a model: a script declines it. */
  sampling(): void {
    console.error('sampling: the server asks for a model reply; declined (the command line has no model)');
  }
}
