// Save to the service, duplicate, load a saved spec, import and export the spec file.
import { Alert, Button, FileButton, Group, Paper, Select, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { ApiError } from '../api/client';
import { useDuplicateSpec, useSaveSpec, useSpecs } from '../api/queries';
import { navigate } from '../app/router';
import { downloadText } from '../lib/download';
import type { SpecForm } from './formModel';
import { formToYaml, yamlToForm } from './specText';
import { saveWorkingCopy, setFlash, takeFlash } from './workingCopy';

export function SpecFileActions({
  form,
  specId,
  onLoad,
}: {
  form: SpecForm;
  specId: string | undefined;
  onLoad: (f: SpecForm) => void;
}) {
  const specs = useSpecs();
  const save = useSaveSpec();
  const duplicate = useDuplicateSpec();
  // A save of a new spec moves to its URL, which remounts the page: its message comes along.
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(() => {
    const flash = takeFlash();
    return flash ? { ok: true, text: flash } : null;
  });
  const failed = (e: unknown) =>
    setMessage({ ok: false, text: e instanceof ApiError || e instanceof Error ? e.message : String(e) });

  const doSave = () =>
    save.mutate(
      { id: specId, name: form.name, kind: 'spec', text: formToYaml(form) },
      {
        onSuccess: (s) => {
          const text = `Saved as "${s.name}"`;
          setMessage({ ok: true, text });
          if (s.id !== specId) {
            saveWorkingCopy(s.id, form);
            setFlash(text);
            navigate({ page: 'designer', specId: s.id });
          }
        },
        onError: failed,
      },
    );

  const doDuplicate = () => {
    if (!specId) {
      onLoad({ ...form, name: `${form.name}-copy`.slice(0, 32) });
      setMessage({ ok: true, text: 'Copied into a new, unsaved spec' });
      return;
    }
    duplicate.mutate(specId, {
      onSuccess: (s) => {
        const text = `Duplicated as "${s.name}"`;
        setMessage({ ok: true, text });
        setFlash(text);
        navigate({ page: 'designer', specId: s.id });
      },
      onError: failed,
    });
  };

  const doImport = async (file: File | null) => {
    if (!file) return;
    try {
      onLoad(yamlToForm(await file.text()));
      setMessage({ ok: true, text: `Imported ${file.name}` });
    } catch (e) {
      failed(e);
    }
  };

  const saved = (specs.data ?? []).filter((s) => s.kind === 'spec');
  return (
    <Paper withBorder p="sm" radius="md">
      <Title order={3} size="h5" mb="xs">
        Spec file
      </Title>
      <Group gap="xs">
        <Button size="xs" onClick={doSave} loading={save.isPending}>
          Save
        </Button>
        <Button size="xs" variant="default" onClick={doDuplicate} loading={duplicate.isPending}>
          Duplicate
        </Button>
        <FileButton onChange={doImport} accept=".yaml,.yml,.json,application/json,text/yaml">
          {(props) => (
            <Button size="xs" variant="default" {...props}>
              Import…
            </Button>
          )}
        </FileButton>
        <Button
          size="xs"
          variant="default"
          onClick={() => downloadText(`${form.name || 'spec'}.yaml`, formToYaml(form))}
        >
          Export YAML
        </Button>
      </Group>
      {saved.length > 0 && (
        <Select
          mt="xs"
          size="xs"
          label="Open a saved spec"
          placeholder="Pick one"
          data={saved.map((s) => ({ value: s.id, label: `${s.name} (${s.owner})` }))}
          value={specId ?? null}
          onChange={(id) => id && navigate({ page: 'designer', specId: id })}
        />
      )}
      {message && (
        <Alert mt="xs" p="xs" color={message.ok ? 'teal' : 'red'} role="status">
          <Text size="xs">{message.text}</Text>
        </Alert>
      )}
    </Paper>
  );
}
