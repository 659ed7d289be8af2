// Regenerates the generated parts of README.md (configuration table, permission table) from the
// code, so the README stays true: `npm run readme`. A test fails when they are out of date.
import { readFileSync, writeFileSync } from 'node:fs';
import { configEntries } from './config.ts';
import { permissionTableMarkdown } from '../domain/users/permissions.ts';

export function configTableMarkdown(): string {
  return [
    '| Variable | Flag | Default | Meaning |',
    '|---|---|---|---|',
    ...configEntries.map((e) => `| \`${e.env}\` | \`${e.flag}\` | ${e.default} | ${e.description} |`),
  ].join('\n') + '\n';
}

export function generatedSections(): Record<string, string> {
  return { 'config-table': configTableMarkdown(), 'permission-table': permissionTableMarkdown() };
}

export function renderReadme(text: string): string {
  let out = text;
  for (const [name, body] of Object.entries(generatedSections())) {
    out = out.replace(new RegExp(`(<!-- ${name}:start -->\\n)[\\s\\S]*?(<!-- ${name}:end -->)`), (_m, a: string, b: string) => a + body + b);
  }
  return out;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const text = readFileSync('README.md', 'utf8');
  writeFileSync('README.md', renderReadme(text));
  process.stdout.write('README.md regenerated\n');
}
