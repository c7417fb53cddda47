import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parseDocument } from 'yaml';
import { ConfigError } from '../errors/index.ts';

const EXAMPLE_HINT = 'create one with "harpoon config example > harpoon.yaml"';

function fileError(file: string, problem: string, fix: string, code = 'config_invalid'): ConfigError {
  return new ConfigError(`${file}: ${problem}. Fix: ${fix}`, { code, details: { file } });
}

/** Line and column (1-based) of a character offset. */
function lineCol(text: string, offset: number): { line: number; col: number } {
  const before = text.slice(0, Math.max(0, offset));
  const lines = before.split('\n');
  return { line: lines.length, col: (lines[lines.length - 1]?.length ?? 0) + 1 };
}

/**
 * Reads a config file, YAML (.yaml/.yml) or JSON (.json) by extension. Syntax errors name the file,
 * line and column but never quote the file's text (it could hold a secret by mistake).
 */
export function readConfigFile(file: string): Record<string, unknown> {
  const ext = extname(file).toLowerCase();
  if (!['.yaml', '.yml', '.json'].includes(ext)) {
    throw fileError(file, `unsupported file type "${ext || '(none)'}"`, 'use a .yaml, .yml or .json file');
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT')
      throw fileError(file, 'file not found', `check the path, or ${EXAMPLE_HINT}`, 'config_not_found');
    if (code === 'EACCES')
      throw fileError(file, 'cannot be read (permission denied)', 'make it readable by this user');
    if (code === 'EISDIR') throw fileError(file, 'is a directory', 'point --config at a .yaml or .json file');
    throw fileError(file, `cannot be read (${code ?? 'unknown error'})`, 'check the path and permissions');
  }
  let data: unknown;
  if (ext === '.json') {
    try {
      data = JSON.parse(text);
    } catch (e) {
      const pos = /position (\d+)/.exec(e instanceof Error ? e.message : '');
      const at = pos
        ? ` at line ${lineCol(text, Number(pos[1])).line}, column ${lineCol(text, Number(pos[1])).col}`
        : '';
      throw fileError(
        file,
        `is not valid JSON${at}`,
        'check quotes, commas and brackets (or write the config in YAML)',
      );
    }
  } else {
    const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
    const first = doc.errors[0];
    if (first) {
      const where = first.linePos?.[0];
      const at = where ? `:${where.line}:${where.col}` : '';
      const what = (first.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
      throw new ConfigError(`${file}${at}: YAML syntax error: ${what}. Fix: correct the YAML at that line`, {
        details: { file, line: where?.line ?? null, column: where?.col ?? null, yamlCode: first.code },
      });
    }
    try {
      data = doc.toJS({ maxAliasCount: 100 });
    } catch (e) {
      throw fileError(
        file,
        `cannot be read as YAML (${e instanceof Error ? e.message.split('\n')[0] : 'error'})`,
        'simplify aliases and anchors',
      );
    }
  }
  if (data === null || data === undefined) return {};
  if (typeof data !== 'object' || Array.isArray(data)) {
    throw fileError(
      file,
      `the top level is ${Array.isArray(data) ? 'a list' : `a ${typeof data}`}`,
      `it must be a mapping of sections (api:, chain:, ...); ${EXAMPLE_HINT}`,
    );
  }
  return data as Record<string, unknown>;
}
