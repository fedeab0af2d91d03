/* eslint-disable no-console, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- benchmarks run in jest on a developer machine, never inside n8n */
/**
 * Figures of the benchmarks: each bench file records its section into bench/results/<id>.json and
 * then rewrites bench/RESULTS.md from every section present, so the last file to finish leaves the
 * complete report and running a single bench file updates only its own section. A section holds the
 * figures of the last run only, with the command that reproduces them.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface Figure {
	name: string;
	value: string;
	/** The figure's target, when it has one. */
	target?: string;
	/** Whether the target is met; undefined for figures without a target. */
	met?: boolean;
}

export interface Section {
	id: string;
	title: string;
	/** The exact command that reproduces the figures. */
	command: string;
	/** How the figures were obtained, in a sentence or two. */
	method: string;
	figures: Figure[];
	/** A table of its own (markdown lines), printed after the method. */
	table?: string[];
	/** Findings computed from the run's own figures. */
	notes?: string[];
	/** Raw figures, kept in the JSON file only. */
	raw?: unknown;
	/** Filled in by recordSection. */
	date?: string;
	machine?: string;
	/** The real n8n the section ran in, if any. */
	n8nVersion?: string;
}

const BENCH_DIR = __dirname;
const RESULTS_DIR = path.join(BENCH_DIR, 'results');
const RESULTS_MD = path.join(BENCH_DIR, 'RESULTS.md');

/** Order of the sections in RESULTS.md: the action node, then the trigger in one process, then queue mode. */
const ORDER = [
	'send',
	'send-once',
	'send-once-n8n',
	'tokens',
	'snapshot',
	'webhook',
	'write-back-baseline',
	'record',
	'record-size',
	'public-api-cost',
	'queue-busy-hour',
	'queue-keys',
	'queue-mode',
];

export function machine(): string {
	const cpus = os.cpus();
	const load = os
		.loadavg()
		.map((l) => l.toFixed(2))
		.join(' ');
	return `${cpus.length} cores (${cpus[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version}, ${os.platform()} ${os.release()}, load average at the end ${load}`;
}

/** Prints a section and stores it; then rewrites RESULTS.md. */
export function recordSection(section: Section): void {
	const full: Section = { ...section, date: new Date().toISOString(), machine: machine() };
	console.log(formatSection(full));
	fs.mkdirSync(RESULTS_DIR, { recursive: true });
	fs.writeFileSync(
		path.join(RESULTS_DIR, `${section.id}.json`),
		`${JSON.stringify(full, null, 2)}\n`,
	);
	writeResultsMarkdown();
}

function verdict(figure: Figure): string {
	if (figure.met === undefined) return '';
	return figure.met ? 'met' : '**missed**';
}

function formatSection(section: Section): string {
	const lines = [`## ${section.title}`, ''];
	lines.push(
		'```sh',
		section.command,
		'```',
		'',
		`Run ${section.date ?? '?'} on ${section.machine ?? '?'}${section.n8nVersion ? `, n8n ${section.n8nVersion}` : ''}.`,
		'',
	);
	lines.push(section.method, '');
	if (section.table?.length) lines.push(...section.table, '');
	lines.push('| Figure | Value | Target | Met |', '|---|---|---|---|');
	for (const figure of section.figures) {
		lines.push(
			`| ${figure.name} | ${figure.value} | ${figure.target ?? ''} | ${verdict(figure)} |`,
		);
	}
	if (section.notes?.length) {
		lines.push('');
		for (const note of section.notes) lines.push(`- ${note}`);
	}
	return lines.join('\n');
}

function readSections(): Section[] {
	if (!fs.existsSync(RESULTS_DIR)) return [];
	const sections = fs
		.readdirSync(RESULTS_DIR)
		.filter((file) => file.endsWith('.json'))
		.map((file) => JSON.parse(fs.readFileSync(path.join(RESULTS_DIR, file), 'utf8')) as Section);
	const rank = (id: string) => (ORDER.includes(id) ? ORDER.indexOf(id) : ORDER.length);
	return sections.sort((a, b) => rank(a.id) - rank(b.id) || a.id.localeCompare(b.id));
}

export function writeResultsMarkdown(): void {
	const sections = readSections();
	const withTargets = sections.flatMap((s) =>
		s.figures.filter((f) => f.met !== undefined).map((f) => ({ section: s, figure: f })),
	);
	const n8nVersions = [
		...new Set(sections.map((s) => s.n8nVersion).filter((v): v is string => v !== undefined)),
	];
	const lines = [
		'# Benchmark results',
		'',
		'The current figures of each benchmark, written by the benchmark itself (bench/*.bench.ts; raw',
		'figures in bench/results/<section>.json). Each section starts with the command that reproduces',
		'it and carries its own run date; `npm run bench` runs them all. Figures, not assertions: a missed',
		'target is reported as missed. What was tried and measured along the way: [DECISIONS.md](DECISIONS.md).',
		'',
		`- Written: ${new Date().toISOString()}`,
		`- Machine: ${os.cpus().length} cores (\`os.cpus().length\`), ${os.cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB`,
		`- Node (jest, node code, simulator): ${process.version}`,
		`- n8n (real-n8n part): ${n8nVersions.length ? n8nVersions.join(', ') : 'not run'}`,
		'',
		'## Targets',
		'',
		'| Benchmark | Figure | Value | Target | Met |',
		'|---|---|---|---|---|',
		...withTargets.map(
			({ section, figure }) =>
				`| ${section.title} | ${figure.name} | ${figure.value} | ${figure.target ?? ''} | ${verdict(figure)} |`,
		),
		'',
		...sections.flatMap((section) => [formatSection(section), '']),
	];
	fs.writeFileSync(RESULTS_MD, lines.join('\n'));
}

/** Median of a list of numbers. */
export function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	const mid = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function percentile(values: number[], p: number): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export const fmt = (value: number, digits = 1) => value.toFixed(digits);
export const pct = (fraction: number, digits = 1) => `${(fraction * 100).toFixed(digits)} %`;
