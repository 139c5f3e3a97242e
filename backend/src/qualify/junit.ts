// JUnit XML as Jenkins, GitLab and junitparser read it: one <testsuite> per condition (GitLab and
// Jenkins group by it), one <testcase name=STACK classname=SUITE.CONDITION> per stack, <failure>
// for a bound missed, <error> for a run the lab cannot vouch for or a metric not measured.
import type { CaseResult, SuiteResult } from './judge.js';

/** XML 1.0 text or attribute value: markup escaped, characters XML cannot carry dropped. */
export function xmlEscape(s: string): string {
  return s
    .replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

const attrs = (o: Record<string, string | number>) =>
  Object.entries(o)
    .map(([k, v]) => ` ${k}="${xmlEscape(String(v))}"`)
    .join('');

const seconds = (s: number) => s.toFixed(3);

function testcase(suite: string, c: CaseResult): string {
  const head = `    <testcase${attrs({ name: c.stack, classname: `${suite}.${c.condition}`, time: seconds(c.seconds) })}`;
  const out = [
    ...c.metrics.map((m) => m.message),
    ...c.runs.map((r) => `run ${r.id}: ${r.status}, verdict ${r.verdict ?? '-'}`),
  ].join('\n');
  const systemOut = `      <system-out>${xmlEscape(out)}</system-out>\n`;
  if (c.outcome === 'pass') return `${head}>\n${systemOut}    </testcase>`;
  const tag = c.outcome === 'failure' ? 'failure' : 'error';
  const type = c.outcome === 'failure' ? 'threshold' : 'invalid-run';
  const body = `      <${tag}${attrs({ message: c.message, type })}>${xmlEscape(c.message.split('; ').join('\n'))}</${tag}>\n`;
  return `${head}>\n${body}${systemOut}    </testcase>`;
}

export function junitXml(r: SuiteResult, timestamp = new Date()): string {
  const props = {
    'lab.mode': r.lab === 'fake' ? 'fake' : 'real',
    'lab.name': r.lab,
    'image.id': r.imageId ?? 'unknown',
    kernel: r.kernel ?? 'unknown',
    seed: String(r.seed),
    repetitions: String(r.repetitions),
    ...(r.seconds !== null ? { 'run.seconds': String(r.seconds) } : {}),
  };
  const properties = `    <properties>\n${Object.entries(props)
    .map(([name, value]) => `      <property${attrs({ name, value })}/>`)
    .join('\n')}\n    </properties>`;
  const suites = r.conditions.map((cond) => {
    const cases = r.cases.filter((c) => c.condition === cond);
    const n = (o: CaseResult['outcome']) => cases.filter((c) => c.outcome === o).length;
    const time = cases.reduce((a, c) => a + c.seconds, 0);
    return `  <testsuite${attrs({
      name: `${r.suite}.${cond}`,
      tests: cases.length,
      failures: n('failure'),
      errors: n('error'),
      skipped: 0,
      time: seconds(time),
      timestamp: timestamp.toISOString().replace(/\.\d+Z$/, ''),
    })}>\n${properties}\n${cases.map((c) => testcase(r.suite, c)).join('\n')}\n  </testsuite>`;
  });
  const total = r.cases.reduce((a, c) => a + c.seconds, 0);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites${attrs({
    name: r.suite,
    tests: r.counts.tests,
    failures: r.counts.failures,
    errors: r.counts.errors,
    time: seconds(total),
  })}>\n${suites.join('\n')}\n</testsuites>\n`;
}
