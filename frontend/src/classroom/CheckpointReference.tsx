// What a checkpoint may say, as the service defines it: operators, names and functions with what
// each measures, and a few examples; beside the YAML editor of a customised sheet.
import { Code, Table, Text } from '@mantine/core';
import { useCheckpointLanguage } from './api';

export function CheckpointReference() {
  const lang = useCheckpointLanguage(true);
  if (!lang.data) return null;
  const { functions, names, operators, examples } = lang.data;
  return (
    <details data-testid="checkpoint-reference">
      <summary>
        <Text span size="sm" fw={500}>
          The checkpoint language
        </Text>
      </summary>
      <Text size="xs" mt={4}>
        A checkpoint is one comparison over the run’s summary. Operators: {operators.join(' · ')}. Examples:{' '}
        {examples.map((e) => (
          <Code key={e} mr={6}>
            {e}
          </Code>
        ))}
      </Text>
      <Table.ScrollContainer minWidth={420}>
        <Table fz="xs" mt={4}>
          <Table.Tbody>
            {functions.map((f) => (
              <Table.Tr key={f.name}>
                <Table.Td ff="monospace" style={{ whiteSpace: 'nowrap' }}>
                  {f.name}({f.args})
                </Table.Td>
                <Table.Td>{f.doc}</Table.Td>
              </Table.Tr>
            ))}
            {names.map((n) => (
              <Table.Tr key={n.name}>
                <Table.Td ff="monospace">{n.name}</Table.Td>
                <Table.Td>{n.doc}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </details>
  );
}
