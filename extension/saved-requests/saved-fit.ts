/**
 * Whether a saved request still fits its tool: a tool's inputSchema may change after a request was saved
 * (a field renamed, a type changed, a field made required). The request is loaded and sent as it was
 * saved, which is what a test of the server wants; the panel says where it no longer fits.
 */
import { type JsonSchema, validateValue } from '../forms/forms';

/**
 * Each way a saved request, as loaded into the tool's form, breaks the tool's inputSchema now, as
 * `path: problem`; none when it fits. The form's value is checked as it will be sent.
 */
export function savedRequestMisfits(
  schema: JsonSchema | undefined,
  parameters: Record<string, unknown>,
): string[] {
  const problems = validateValue(schema, parameters)
    .filter((problem) => !problem.unchecked)
    .map((problem) => `${problem.path}: ${problem.message}`);
  const properties = schema?.properties;
  if (properties && typeof properties === 'object') {
    for (const name of Object.keys(parameters)) {
      if (!Object.hasOwn(properties, name)) problems.push(`${name}: not in the inputSchema (sent as saved)`);
    }
  }
  return problems;
}
