// Writes a run's page and ratio chart from its record: at the end of `npm run bench`, and on its own with
// `npm run bench -- --render-only [--from=bench/results/benchmarks.json] [--out=BENCHMARKS.md]`.
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderReport, type Report } from './report.js';
import { readRunRecord, type RunRecord } from './run-record.js';

export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const DEFAULT_RESULTS = resolve(REPO_ROOT, 'bench/results/benchmarks.json');
export const DEFAULT_PAGE = resolve(REPO_ROOT, 'BENCHMARKS.md');
/** The page `npm run bench:scale` writes (bench/scale.ts). */
export const SCALE_PAGE = resolve(REPO_ROOT, 'bench/results/scale.md');

/** The paths a page links to use forward slashes and start from the page's folder. */
const link = (fromDir: string, path: string) => relative(fromDir, path).split('\\').join('/');

/** Where the run's lateness chart is: its recorded path from the repository root, or (older files) from the results' folder. */
function latenessChart(record: RunRecord, jsonPath: string): string | undefined {
  const file = record.info.chartFile;
  if (!file) return undefined;
  return [resolve(REPO_ROOT, file), resolve(dirname(jsonPath), file)].find((p) => existsSync(p));
}

/** The page for `record` (stored at `jsonPath`) as it would be written to `pagePath`, and its ratio chart. */
export function reportFor(
  record: RunRecord,
  jsonPath: string,
  pagePath: string,
): Report & { ratioPath: string; detailPath: string } {
  const pageDir = dirname(pagePath);
  const ratioPath = jsonPath.replace(/\.json$/, '-ratios.svg');
  const detailPath = jsonPath.replace(/\.json$/, '-detail.md');
  const chart = latenessChart(record, jsonPath);
  const root = link(pageDir, REPO_ROOT);
  const detailRoot = link(dirname(detailPath), REPO_ROOT);
  const report = renderReport(record, {
    root: root ? `${root}/` : '',
    resultsFile: link(REPO_ROOT, jsonPath),
    latenessChart: chart && link(pageDir, chart),
    ratioChart: link(pageDir, ratioPath),
    renderCommand: renderCommand(jsonPath, pagePath),
    scalePage: existsSync(SCALE_PAGE) ? link(pageDir, SCALE_PAGE) : undefined,
    detail: {
      link: link(pageDir, detailPath),
      root: detailRoot ? `${detailRoot}/` : '',
      back: link(dirname(detailPath), pagePath),
    },
  });
  return { ...report, ratioPath, detailPath };
}

/** Writes the page, its second page and its ratio chart; returns the files written. */
export function writeReport(record: RunRecord, jsonPath: string, pagePath: string): string[] {
  const { markdown, detail, ratioSvg, ratioPath, detailPath } = reportFor(record, jsonPath, pagePath);
  const written = [pagePath];
  writeFileSync(pagePath, markdown);
  if (detail) {
    writeFileSync(detailPath, detail);
    written.push(detailPath);
  }
  if (ratioSvg) {
    writeFileSync(ratioPath, ratioSvg);
    written.push(ratioPath);
  }
  return written;
}

/** `npm run bench -- --render-only`, with `--from` and `--out` where they are not the defaults. */
function renderCommand(jsonPath: string, pagePath: string): string {
  const from = resolve(jsonPath) === DEFAULT_RESULTS ? '' : ` --from=${link(REPO_ROOT, jsonPath)}`;
  const implied = from ? jsonPath.replace(/\.json$/, '.md') : DEFAULT_PAGE;
  const out = resolve(pagePath) === resolve(implied) ? '' : ` --out=${link(REPO_ROOT, pagePath)}`;
  return `npm run bench -- --render-only${from}${out}`;
}

export function renderOnly(argv: readonly string[]): string[] {
  const option = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const from = resolve(option('from') ?? DEFAULT_RESULTS);
  const out = resolve(option('out') ?? (from === DEFAULT_RESULTS ? DEFAULT_PAGE : from.replace(/\.json$/, '.md')));
  return writeReport(readRunRecord(from), from, out);
}
