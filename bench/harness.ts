/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- benchmarks run in jest on a developer machine, never inside n8n */
/**
 * What the benchmarks that run a real n8n share: the typed orchestration library, signed load with
 * undici, round summaries, the build and install of this package (and of a baseline commit beside
 * it), and workflow plumbing.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Pool } from 'undici';

import * as localModule from '../scripts/lib/local-setup';
import * as runtimeModule from '../scripts/lib/n8n-runtime';
import * as e2eHelpersModule from '../test/e2e/helpers';
import * as queueHelpersModule from '../test/e2e/queue-helpers';
import { DEFAULT_SIGNING_SECRET } from '../test/simulator';
import { median, percentile } from './results';

/* The orchestration library is plain JavaScript; only what the benchmarks use is typed. */
export interface RuntimeInfo {
	nodeBin: string;
	nodeBinDir: string;
	version: string;
}
export interface Instance {
	baseUrl: string;
	port: number;
	userFolder: string;
	cookie?: string;
	apiKey?: string;
	runtime: RuntimeInfo;
}
interface Runtime {
	REPO_ROOT: string;
	N8N_VERSION: string;
	installRuntime(opts: { log: (line: string) => void }): Promise<RuntimeInfo>;
	buildPackage(opts: { log: (line: string) => void }): Promise<void>;
	packPackage(dir: string): Promise<string>;
	installPackageInto(
		userFolder: string,
		tarball: string,
		opts: { runtime: RuntimeInfo; extraTarballs?: string[] },
	): Promise<string>;
	createInstance(
		runtime: RuntimeInfo,
		opts: { userFolder: string; port?: number; extraEnv?: Record<string, string> },
	): Promise<Instance>;
	importCredentials(instance: Instance, credentials: unknown[]): Promise<void>;
	importWorkflows(instance: Instance, workflows: unknown[]): Promise<void>;
	startServer(instance: Instance, opts: { log: (line: string) => void }): Promise<Instance>;
	stopServer(instance: Instance): Promise<void>;
	packageLoadError(instance: Instance): string | undefined;
	readLog(instance: Instance): string;
	setupAccess(instance: Instance, owner: Record<string, string>): Promise<Instance>;
	activateWorkflow(instance: Instance, id: string): Promise<unknown>;
	registeredWebhooks(instance: Instance): Promise<Array<{ workflowId: string; url: string }>>;
	waitForWebhook(url: string): Promise<boolean>;
	// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON of n8n's public API
	publicApi(instance: Instance, method: string, route: string, body?: unknown): Promise<any>;
	restCall(
		instance: Instance,
		method: string,
		route: string,
		opts: { cookie?: string },
	): Promise<{ json?: { data?: { versionCli?: string } } }>;
	run(
		cmd: string,
		args: string[],
		opts?: { cwd?: string; env?: Record<string, string | undefined> },
	): Promise<{ stdout: string }>;
	sleep(ms: number): Promise<void>;
}
export const rt = runtimeModule as unknown as Runtime;

export const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

/** The owner each benchmark's n8n is set up with: the local set-up's. */
export const benchOwner = (localModule as unknown as { DEFAULT_OWNER: Record<string, string> })
	.DEFAULT_OWNER;

export const SECRET = DEFAULT_SIGNING_SECRET;
export const CC = 'n8n-nodes-contact-center';
export const MINIMAL = 'n8n-nodes-bench-minimal-trigger';
const FIXTURE_DIR = path.join(__dirname, 'fixtures', 'minimal-trigger');

/** The e2e suite's signing and write back payload (spec 2.11), shared so both send the same calls. */
const e2eHelpers = e2eHelpersModule as unknown as {
	sign: (secretHex: string, rawBody: string) => string;
	writeBackPayload: (
		idempotencyKey: string,
		conversationId: string,
		data?: Record<string, unknown>,
	) => Record<string, unknown>;
};
export const writeBackPayload = e2eHelpers.writeBackPayload;

export const sign = (rawBody: string) => e2eHelpers.sign(SECRET, rawBody);

const { postSignedWithin } = queueHelpersModule as unknown as {
	postSignedWithin: (
		url: string,
		payload: Record<string, unknown>,
		options: { secret: string; timeoutMs: number },
	) => Promise<{ status: number; json?: { status?: string } }>;
};

/**
 * Posts a signed write back and waits up to 4 minutes for its answer, in words: the status and
 * the answer's own status (`200 processed`), or `0` and why none came.
 */
export async function writeBackAnswer(
	url: string,
	payload: Record<string, unknown>,
): Promise<string> {
	try {
		const res = await postSignedWithin(url, payload, { secret: SECRET, timeoutMs: 240_000 });
		return `${res.status}${res.json?.status ? ` ${res.json.status}` : ''}`;
	} catch (error) {
		return `0 ${(error as Error).message}`;
	}
}

export type BodyKind = 'writeBack' | 'writeBackNoKey' | 'lookup';

function writeBackBody(withKey = true): string {
	const payload = e2eHelpers.writeBackPayload(randomUUID(), randomUUID());
	if (!withKey) delete payload.idempotencyKey;
	return JSON.stringify(payload);
}

export const makeBody = (kind: BodyKind): string =>
	kind === 'lookup'
		? JSON.stringify({ email: 'ada@example.com' })
		: writeBackBody(kind === 'writeBack');

export const x = (value: number) => `${value.toFixed(2)}x`;

/**
 * BENCH_N8N_NODE_OPTIONS: Node.js options for the n8n the benchmark starts, to see where its time
 * goes (for example `--cpu-prof --cpu-prof-dir=/tmp/profiles`: one profile per n8n start).
 */
export const n8nNodeOptions = (): Record<string, string> =>
	process.env.BENCH_N8N_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_N8N_NODE_OPTIONS } : {};

export interface LoadResult {
	requests: number;
	bodies: string[];
	ms: number;
	statuses: Record<number, number>;
	latencies: number[];
	/** Answers whose body looked wrong (a lookup without the customer's attributes). */
	badAnswers: number;
}

/** `count` signed POSTs with `concurrency` in flight; bodies made and signed before the clock starts. */
export async function load(
	pool: Pool,
	url: string,
	kind: BodyKind,
	count: number,
	concurrency: number,
): Promise<LoadResult> {
	const pathname = new URL(url).pathname;
	const prepared = Array.from({ length: count }, () => {
		const body = makeBody(kind);
		return { body, signature: sign(body) };
	});
	const statuses: Record<number, number> = {};
	const latencies: number[] = [];
	let badAnswers = 0;
	let next = 0;
	const worker = async () => {
		while (next < prepared.length) {
			const { body, signature } = prepared[next++];
			const started = performance.now();
			const res = await pool.request({
				path: pathname,
				method: 'POST',
				headers: {
					'content-type': 'application/json',
					accept: 'application/json',
					'x-service-signature': signature,
				},
				body,
			});
			const text = await res.body.text();
			latencies.push(performance.now() - started);
			statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
			if (kind === 'lookup' && !/"customerId"[^}]*"CUST-1815"/.test(text)) badAnswers++;
		}
	};
	const started = performance.now();
	await Promise.all(Array.from({ length: concurrency }, worker));
	return {
		requests: count,
		bodies: prepared.map((p) => p.body),
		ms: performance.now() - started,
		statuses,
		latencies,
		badAnswers,
	};
}

export interface Summary {
	requests: number;
	/** Median over the rounds of requests per second. */
	rps: number;
	rounds: number[];
	p50: number;
	p99: number;
	statuses: Record<number, number>;
	badAnswers: number;
}

export function summarise(results: LoadResult[]): Summary {
	const latencies = results.flatMap((r) => r.latencies);
	const statuses: Record<number, number> = {};
	for (const r of results)
		for (const [code, n] of Object.entries(r.statuses))
			statuses[Number(code)] = (statuses[Number(code)] ?? 0) + n;
	const rounds = results.map((r) => (r.requests / r.ms) * 1000);
	return {
		requests: results.reduce((sum, r) => sum + r.requests, 0),
		rps: median(rounds),
		rounds,
		p50: median(latencies),
		p99: percentile(latencies, 99),
		statuses,
		badAnswers: results.reduce((sum, r) => sum + r.badAnswers, 0),
	};
}

function newestMtime(dir: string): number {
	let newest = 0;
	for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
		const full = path.join(dir, entry.name);
		newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : fs.statSync(full).mtimeMs);
	}
	return newest;
}

/** Builds only when dist is missing or older than the sources, so a build never pulls dist from under a parallel run. */
export async function ensureBuilt() {
	const root = rt.REPO_ROOT;
	const dist = path.join(root, 'dist');
	const sources = Math.max(
		newestMtime(path.join(root, 'nodes')),
		newestMtime(path.join(root, 'credentials')),
		fs.statSync(path.join(root, 'package.json')).mtimeMs,
	);
	if (fs.existsSync(dist) && newestMtime(dist) >= sources) {
		log('dist is up to date; not rebuilding');
		return;
	}
	await rt.buildPackage({ log });
}

async function packFolder(folder: string, packDir: string): Promise<string> {
	fs.mkdirSync(packDir, { recursive: true });
	const { stdout } = await rt.run(
		'npm',
		['pack', folder, '--json', '--pack-destination', packDir, '--ignore-scripts'],
		{ cwd: packDir },
	);
	return path.join(
		packDir,
		(JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{ filename: string }>)[0].filename,
	);
}

/**
 * Installs this package, the minimal trigger fixture and `extra` packages into n8n's community
 * package folder in one `npm install` (a second install would prune the first, which is not in
 * package.json).
 */
export async function installPackages(
	userFolder: string,
	runtime: RuntimeInfo,
	extra: Array<{ name: string; tarball: string }> = [],
) {
	const packDir = path.join(userFolder, 'pack');
	const tarball = await rt.packPackage(packDir);
	const fixtureTarball = await packFolder(FIXTURE_DIR, packDir);
	const nodesDir = await rt.installPackageInto(userFolder, tarball, {
		runtime,
		extraTarballs: [fixtureTarball, ...extra.map((e) => e.tarball)],
	});
	for (const name of [CC, MINIMAL, ...extra.map((e) => e.name)]) {
		if (!fs.existsSync(path.join(nodesDir, 'node_modules', name, 'package.json')))
			throw new Error(`${name} did not install into ${nodesDir}`);
	}
}

const CREDENTIAL_TYPES = [
	'contactCenterRecordApi',
	'contactCenterSigningSecretApi',
	'contactCenterOAuth2Api',
	'contactCenterBaseUrlApi',
];

/** This package as it was on a commit, packed under names that load beside this package in one n8n. */
export interface Baseline {
	commit: string;
	/** The package name: `n8n-nodes-contact-center-<commit>`. */
	name: string;
	/** Appended to each credential type name (n8n keys credential types by name across packages). */
	suffix: string;
	tarball: string;
	/** A node type of the baseline package, e.g. `nodeType('contactCenterTrigger')`. */
	nodeType(name: string): string;
	/** A credential type of the baseline package, e.g. `credentialType('contactCenterRecordApi')`. */
	credentialType(name: string): string;
	/**
	 * The version n8n gives a new node of this baseline node type (its description's defaultVersion,
	 * else its highest version), e.g. `typeVersion('contactCenterTrigger')`: the commit's nodes may
	 * have had other versions than this package's.
	 */
	typeVersion(name: string): number;
}

/**
 * The default version of each node of the package built in `dir`, by node type name, read from
 * its dist with a separate Node.js (so the commit's modules never load into the benchmark's).
 */
async function defaultNodeVersions(
	dir: string,
	nodeFiles: string[],
): Promise<Record<string, number>> {
	const script = `
const out = {};
for (const file of ${JSON.stringify(nodeFiles)}) {
	for (const NodeClass of Object.values(require(require('node:path').resolve(file)))) {
		if (typeof NodeClass !== 'function') continue;
		const d = new NodeClass().description;
		out[d.name] = d.defaultVersion ?? (Array.isArray(d.version) ? Math.max(...d.version) : d.version);
	}
}
process.stdout.write(JSON.stringify(out));`;
	const { stdout } = await rt.run(process.execPath, ['-e', script], { cwd: dir });
	return JSON.parse(stdout) as Record<string, number>;
}

/**
 * The package of `commit`, built from git into .n8n-local/baseline-<commit> with this checkout's
 * node_modules, packed into `packDir` as `n8n-nodes-contact-center-<commit>` with its credential
 * types suffixed `At<commit>`; its nodes' default versions read from the built package.
 */
export async function packBaseline(commit: string, packDir: string): Promise<Baseline> {
	const name = `${CC}-${commit}`;
	const suffix = `At${commit}`;
	const dir = path.join(rt.REPO_ROOT, '.n8n-local', `baseline-${commit}`);
	fs.rmSync(dir, { recursive: true, force: true });
	fs.mkdirSync(dir, { recursive: true });
	const archive = path.join(dir, 'source.tar');
	await rt.run('git', ['-C', rt.REPO_ROOT, 'archive', '-o', archive, commit]);
	await rt.run('tar', ['-xf', archive, '-C', dir]);
	fs.symlinkSync(path.join(rt.REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'));
	const bin = (tool: string) => path.join(rt.REPO_ROOT, 'node_modules', '.bin', tool);
	await rt.run(bin('tsc'), ['-p', 'tsconfig.build.json'], { cwd: dir });
	await rt.run(bin('gulp'), ['build:assets'], { cwd: dir });
	const renameCredentials = (text: string) =>
		text.replace(new RegExp(`\\b(${CREDENTIAL_TYPES.join('|')})\\b`, 'g'), `$1${suffix}`);
	const walk = (folder: string): string[] =>
		fs
			.readdirSync(folder, { withFileTypes: true })
			.flatMap((e) =>
				e.isDirectory() ? walk(path.join(folder, e.name)) : [path.join(folder, e.name)],
			);
	for (const file of walk(path.join(dir, 'dist')).filter((f) => /\.(js|json)$/.test(f)))
		fs.writeFileSync(file, renameCredentials(fs.readFileSync(file, 'utf8')));
	const pkgPath = path.join(dir, 'package.json');
	const pkg = JSON.parse(fs.readFileSync(pkgPath, 'utf8')) as Record<string, unknown>;
	pkg.name = name;
	delete pkg.scripts;
	fs.writeFileSync(pkgPath, `${JSON.stringify(pkg, null, 2)}\n`);
	const versions = await defaultNodeVersions(dir, (pkg.n8n as { nodes: string[] }).nodes);
	const tarball = await packFolder(dir, packDir);
	// The commit's sources would otherwise sit in this checkout for the linter to find.
	fs.rmSync(dir, { recursive: true, force: true });
	return {
		commit,
		name,
		suffix,
		tarball,
		nodeType: (node) => `${name}.${node}`,
		credentialType: (type) => `${type}${suffix}`,
		typeVersion: (node) => {
			const version = versions[node];
			if (typeof version !== 'number') throw new Error(`${name} has no node ${node}`);
			return version;
		},
	};
}

/** A workflow to import: node ids and positions filled in, the first node given a webhook id. */
export function benchWorkflow(
	id: string,
	name: string,
	nodes: Array<Record<string, unknown>>,
	connections: Record<string, unknown> = {},
) {
	return {
		id,
		name,
		nodes: nodes.map(
			(node, i): Record<string, unknown> => ({
				id: randomUUID(),
				position: [i * 240, 0],
				...(i === 0 && !('webhookId' in node) ? { webhookId: randomUUID() } : {}),
				...node,
			}),
		),
		connections,
		settings: { executionOrder: 'v1' },
		pinData: {},
		active: false,
	};
}

/** Workflow connections that chain the named nodes in order. */
export const chain = (...names: string[]) =>
	Object.fromEntries(
		names
			.slice(0, -1)
			.map((name, i) => [name, { main: [[{ node: names[i + 1], type: 'main', index: 0 }]] }]),
	);

/**
 * Production webhook paths of the active workflows, by workflow id, once n8n has registered all of
 * them (n8n 2.41 activates in the background).
 */
export async function registeredPaths(
	instance: Instance,
	workflowIds: string[],
): Promise<Record<string, string>> {
	let registered = await rt.registeredWebhooks(instance);
	const missing = () => workflowIds.filter((id) => !registered.some((r) => r.workflowId === id));
	for (let tries = 0; tries < 60 && missing().length > 0; tries++) {
		await rt.sleep(500);
		registered = await rt.registeredWebhooks(instance);
	}
	if (missing().length > 0) throw new Error(`no webhook registered for ${missing().join(', ')}`);
	return Object.fromEntries(
		workflowIds.map((id) => [
			id,
			new URL(registered.find((r) => r.workflowId === id)!.url).pathname,
		]),
	);
}

/** n8n's version as it reports it, with the Node.js it runs on. */
export async function n8nVersionOf(instance: Instance): Promise<string> {
	const nodeVersion = (await rt.run(instance.runtime.nodeBin, ['--version'])).stdout.trim();
	const settings = await rt.restCall(instance, 'GET', '/settings', { cookie: instance.cookie });
	return `${settings.json?.data?.versionCli ?? instance.runtime.version} (Node ${nodeVersion})`;
}

/** The 1-minute load average of the machine. */
export async function loadAverage(): Promise<number> {
	const { stdout } = await rt.run('uptime', []);
	return Number(/load average: ([\d.]+)/.exec(stdout)?.[1] ?? NaN);
}

/** The commit a benchmark compares against, from its environment variable, as a short hash. */
export async function baselineCommit(variable: string, fallback: string): Promise<string> {
	const ref = process.env[variable] ?? fallback;
	return (await rt.run('git', ['-C', rt.REPO_ROOT, 'rev-parse', '--short=7', ref])).stdout.trim();
}

/** The commits a benchmark compares against, comma-separated in its environment variable. */
export async function baselineCommits(variable: string, fallback: string): Promise<string[]> {
	const refs = (process.env[variable] ?? fallback).split(',').map((ref) => ref.trim());
	const commits: string[] = [];
	for (const ref of refs.filter(Boolean)) {
		const { stdout } = await rt.run('git', ['-C', rt.REPO_ROOT, 'rev-parse', '--short=7', ref]);
		commits.push(stdout.trim());
	}
	return commits;
}
