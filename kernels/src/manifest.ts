import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface KernelManifest {
  series: string;
  abi: string;
  image: { package: string; version: string; sha256: string };
  headers: { package: string };
}

export const MANIFEST_PATH = fileURLToPath(new URL('../manifest.json', import.meta.url));

export function readManifest(path = MANIFEST_PATH): KernelManifest {
  return JSON.parse(readFileSync(path, 'utf8')) as KernelManifest;
}
