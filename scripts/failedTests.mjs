// The failed tests of one vitest JSON report, one line each: project, file (relative to here), test
// name and the first line of its message. A file that failed without a failed test (it did not
// load) gets a line of its own.
import { relative } from 'node:path';

export function failedTests(project, report, cwd = process.cwd()) {
  const lines = [];
  for (const file of report.testResults ?? []) {
    const name = relative(cwd, file.name);
    const failures = (file.assertionResults ?? []).filter((a) => a.status === 'failed');
    if (file.status === 'failed' && failures.length === 0)
      lines.push(`  ${project} ${name}: ${firstLine(file.message)}`);
    for (const a of failures)
      lines.push(`  ${project} ${name} > ${a.fullName}: ${firstLine(a.failureMessages?.[0])}`);
  }
  return lines;
}

function firstLine(text) {
  const line = (text ?? '').split('\n').find((l) => l.trim()) ?? '';
  return line.trim().slice(0, 300);
}
