// Regenerates the generated parts of the documentation from the code, so it stays true: the
// configuration table of README.md and the permission table of docs/authentication.md
// (`npm run readme`). A test fails when they are out of date.
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

/** Which file holds which generated section. */
export const generatedFiles: Record<string, string[]> = {
  'README.md': ['config-table'],
  'docs/authentication.md': ['permission-table'],
};

/** The text with every generated section it holds brought up to date. */
export function renderReadme(text: string): string {
  let out = text;
  for (const [name, body] of Object.entries(generatedSections())) {
    out = out.replace(new RegExp(`(<!-- ${name}:start -->\\n)[\\s\\S]*?(<!-- ${name}:end -->)`), (_m, a: string, b: string) => a + body + b);
  }
  return out;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  for (const file of Object.keys(generatedFiles)) {
    writeFileSync(file, renderReadme(readFileSync(file, 'utf8')));
    process.stdout.write(`${file} regenerated\n`);
  }
}
