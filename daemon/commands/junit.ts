/**
 * JUnit XML for `inspector-daemon test --junit FILE`: one <testsuite> per collection, one <testcase>
 * per saved request, a <failure> for each request whose expectations did not hold and an <error> for
 * each that could not run. The shape CI servers read (Jenkins, GitLab, GitHub Actions reporters).
 */

export interface CaseReport {
  name: string;
  /** Groups cases in CI reports: the collection and the tool. */
  className: string;
  seconds: number;
  /** A failed expectation: the one-line summary, and the details (one failed expectation a line). */
  failure?: { message: string; details: string };
  /** The request could not run: the call failed, or the server could not be reached. */
  error?: { message: string; type: string };
}

export interface SuiteReport {
  name: string;
  /** Where the suite ran, kept as <property> elements (never a secret: ids and file names only). */
  properties: Record<string, string>;
  timestamp: string;
  seconds: number;
  cases: CaseReport[];
}

/** Characters XML 1.0 cannot carry at all, even escaped: they are dropped. */
const NOT_XML =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function escapeXml(text: string): string {
  return text
    .replace(NOT_XML, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

function attributes(values: Record<string, string | number>): string {
  return Object.entries(values)
    .map(([name, value]) => ` ${name}="${escapeXml(String(value))}"`)
    .join('');
}

const seconds = (value: number): string => value.toFixed(3);

function counts(cases: readonly CaseReport[]): { tests: number; failures: number; errors: number } {
  return {
    tests: cases.length,
    failures: cases.filter((c) => c.failure && !c.error).length,
    errors: cases.filter((c) => c.error).length,
  };
}

function testCase(report: CaseReport): string {
  const head = `    <testcase${attributes({ name: report.name, classname: report.className, time: seconds(report.seconds) })}`;
  if (report.error) {
    const { message, type } = report.error;
    return `${head}>\n      <error${attributes({ message, type })}>${escapeXml(message)}</error>\n    </testcase>`;
  }
  if (report.failure) {
    const { message, details } = report.failure;
    return `${head}>\n      <failure${attributes({ message, type: 'expectation' })}>${escapeXml(details)}</failure>\n    </testcase>`;
  }
  return `${head}/>`;
}

function testSuite(suite: SuiteReport): string {
  const properties = Object.entries(suite.properties)
    .map(([name, value]) => `      <property${attributes({ name, value })}/>`)
    .join('\n');
  return [
    `  <testsuite${attributes({ name: suite.name, ...counts(suite.cases), skipped: 0, time: seconds(suite.seconds), timestamp: suite.timestamp })}>`,
    ...(properties ? ['    <properties>', properties, '    </properties>'] : []),
    ...suite.cases.map(testCase),
    '  </testsuite>',
  ].join('\n');
}

/** The whole report, totals on <testsuites> being the sums of the suites'. */
export function junitXml(suites: readonly SuiteReport[]): string {
  const all = suites.flatMap((s) => s.cases);
  const total = suites.reduce((sum, s) => sum + s.seconds, 0);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attributes({ name: 'inspector-daemon test', ...counts(all), skipped: 0, time: seconds(total) })}>`,
    ...suites.map(testSuite),
    '</testsuites>',
    '',
  ].join('\n');
}
