// A sheet's theory as its author wrote it in YAML: paragraphs separated by blank lines (their line
// breaks are only the file's), and indented blocks (formulas) kept as they are.
import { Code, Stack, Text } from '@mantine/core';

export function TheoryText({ text }: { text: string }) {
  const blocks = text.split(/\n\s*\n/).filter((b) => b.trim() !== '');
  return (
    <Stack gap="xs" maw="80ch">
      {blocks.map((b, i) => {
        const lines = b.split('\n');
        // The blocks of one text never reorder: position and length tell them apart.
        const key = `${i}:${b.length}`;
        if (lines.every((l) => /^\s/.test(l) || l === ''))
          return (
            <Code block key={key}>
              {b.replace(/^\s+/gm, '')}
            </Code>
          );
        return (
          <Text size="sm" key={key}>
            {lines.map((l) => l.trim()).join(' ')}
          </Text>
        );
      })}
    </Stack>
  );
}
