import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IRunExecutionData,
} from 'n8n-workflow';

import {
	assertRunEndReadable,
	jsonResponse,
	outcomeAtEnd,
	outcomeOfRun,
	whenRunEnds,
	writeBackAnswer,
	type RunOutcome,
} from '../../nodes/ContactCenterTrigger/answers';
import { runLookup } from '../../nodes/ContactCenterTrigger/lookup.endpoint';

describe('outcome of a run', () => {
	const run = (resultData: IDataObject, stack: unknown[] = []) =>
		({ resultData, executionData: { nodeExecutionStack: stack } }) as unknown as IRunExecutionData;
	const ran = { Trigger: [{}], Sink: [{}] };

	it('succeeded: finished, no error, the trigger ran', () => {
		expect(outcomeOfRun(run({ runData: ran, lastNodeExecuted: 'Sink' }), 'Trigger')).toBe(
			'succeeded',
		);
	});

	it('failed: an error on the run or on its last node', () => {
		expect(
			outcomeOfRun(
				run({ runData: ran, lastNodeExecuted: 'Sink', error: { message: 'x' } }),
				'Trigger',
			),
		).toBe('failed');
		expect(
			outcomeOfRun(
				run({
					runData: { Trigger: [{}], Sink: [{ error: { message: 'x' } }] },
					lastNodeExecuted: 'Sink',
				}),
				'Trigger',
			),
		).toBe('failed');
	});

	it('unknown: no record, or the record of a run that never ended (its process died)', () => {
		expect(outcomeOfRun(undefined, 'Trigger')).toBe('unknown');
		expect(outcomeOfRun(run({ runData: {} }, [{ node: {} }]), 'Trigger')).toBe('unknown');
		expect(outcomeOfRun(run({ runData: ran, lastNodeExecuted: 'Sink' }, [{}]), 'Trigger')).toBe(
			'unknown',
		);
	});
});

describe('write back answers', () => {
	it('answers every case in one shape; only "in progress" is not 2xx', () => {
		expect(writeBackAnswer('processed', 'k')).toEqual({
			statusCode: 200,
			body: { received: true, duplicate: false, idempotencyKey: 'k', status: 'processed' },
		});
		expect(writeBackAnswer('duplicate', 'k').body).toMatchObject({
			received: true,
			duplicate: true,
		});
		expect(writeBackAnswer('ignored', undefined)).toEqual({
			statusCode: 200,
			body: { received: true, duplicate: false, idempotencyKey: null, status: 'ignored' },
		});
		expect(writeBackAnswer('running', 'k')).toEqual({
			statusCode: 409,
			body: { received: false, duplicate: true, idempotencyKey: 'k', status: 'running' },
		});
	});

	it('sends an answer from the run as the exact JSON bytes with a JSON content type', () => {
		const { statusCode, body } = writeBackAnswer('processed', 'k');
		const response = jsonResponse(statusCode, body);
		expect(response.statusCode).toBe(200);
		expect(response.headers).toEqual({ 'content-type': 'application/json; charset=utf-8' });
		expect(Buffer.isBuffer(response.body)).toBe(true);
		expect(JSON.parse(String(response.body))).toEqual(body);
	});
});

const succeeded = {
	resultData: { runData: { Trigger: [{}], Sink: [{}] }, lastNodeExecuted: 'Sink' },
	executionData: { nodeExecutionStack: [] },
} as unknown as IRunExecutionData;
const failed = {
	...succeeded,
	resultData: { ...succeeded.resultData, error: { message: 'The CRM is down' } },
} as unknown as IRunExecutionData;

interface EndOptions {
	/** What the context holds as `runExecutionData`; absent when not given. */
	inMemory?: unknown;
	/** What `getExecutionDataById` gives, or throws. */
	saved?: IRunExecutionData | Error;
	aborted?: boolean;
	withHook?: boolean;
}

/** An execute context at a run's end, as n8n-core's reads it; records the saved executions read. */
function runEnd(options: EndOptions) {
	const reads: string[] = [];
	const handlers: Array<() => unknown> = [];
	const debug: string[] = [];
	const context = {
		getNode: () => ({ name: 'Trigger' }),
		logger: { debug: (message: string) => debug.push(message) },
		getExecutionId: () => 'exec-7',
		getExecutionCancelSignal: () => ({ aborted: options.aborted === true }),
		getExecutionDataById: async (id: string) => {
			reads.push(id);
			if (options.saved instanceof Error) throw options.saved;
			return options.saved;
		},
		...('inMemory' in options ? { runExecutionData: options.inMemory } : {}),
		...(options.withHook === false
			? {}
			: { onExecutionFinish: (handler: () => unknown) => handlers.push(handler) }),
	} as unknown as IExecuteFunctions;
	return { context, reads, handlers, debug };
}

describe('how a run ended, at its end', () => {
	it('reads the run data in memory, and then no saved execution', async () => {
		const succeededEnd = runEnd({ inMemory: succeeded, saved: failed });
		expect(await outcomeAtEnd(succeededEnd.context)).toBe('succeeded');
		expect(succeededEnd.reads).toEqual([]);
		expect(await outcomeAtEnd(runEnd({ inMemory: failed }).context)).toBe('failed');
	});

	it('counts a run stopped from the editor or the API as failed', async () => {
		expect(await outcomeAtEnd(runEnd({ inMemory: succeeded, aborted: true }).context)).toBe(
			'failed',
		);
	});

	it('without run data in memory (none, null, or not a run), reads the execution n8n saved', async () => {
		for (const inMemory of [undefined, null, 'run', {}]) {
			const end = runEnd({ inMemory, saved: failed });
			expect(await outcomeAtEnd(end.context)).toBe('failed');
			expect(end.reads).toEqual(['exec-7']);
		}
		expect(await outcomeAtEnd(runEnd({ saved: succeeded }).context)).toBe('succeeded');
	});

	it('is unknown when neither tells: no saved execution, or reading it fails', async () => {
		expect(await outcomeAtEnd(runEnd({}).context)).toBe('unknown');
		const unreadable = runEnd({ saved: new Error('no database') });
		expect(await outcomeAtEnd(unreadable.context)).toBe('unknown');
		// Why the saved run was not read is not dropped: n8n's log has it at debug.
		expect(unreadable.debug).toEqual([
			'Contact Center Trigger: the saved execution exec-7 could not be read (no database)',
		]);
	});
});

describe('whenRunEnds', () => {
	it("registers n8n's execution-finish hook, which calls the handler with the outcome unless skipped", async () => {
		const end = runEnd({ inMemory: failed });
		const outcomes: RunOutcome[] = [];
		let skip = false;
		expect(
			whenRunEnds(
				end.context,
				async (outcome) => {
					outcomes.push(outcome);
				},
				() => skip,
			),
		).toBe(true);
		expect(end.handlers).toHaveLength(1);
		await end.handlers[0]();
		skip = true;
		await end.handlers[0]();
		expect(outcomes).toEqual(['failed']);
	});

	it('says so where n8n gives the run no such hook, calling nothing', () => {
		const handler = jest.fn();
		expect(whenRunEnds(runEnd({ withHook: false }).context, handler)).toBe(false);
		expect(handler).not.toHaveBeenCalled();
	});

	it('a lookup run without the hook logs an error saying n8n answers by itself', () => {
		const errors: string[] = [];
		const context = {
			...(runEnd({ withHook: false }).context as object),
			getContext: () => ({}),
			getNodeParameter: () => 'notFound',
			getMode: () => 'webhook',
			logger: { error: (message: string) => errors.push(message) },
		} as unknown as IExecuteFunctions;
		runLookup(context, [{ json: {} }]);
		expect(errors).toEqual([
			'Contact Center Trigger "Trigger": this n8n gives the lookup run (execution exec-7) no execution-finish hook, so a run that ends without Respond to Lookup, or fails, is answered by n8n itself, not 404. The trigger supports n8n 2.36.0 or later (tested with 2.41.1).',
		]);
	});
});

describe('assertRunEndReadable, at activation', () => {
	const hookContext = (extra: object) =>
		({ getNode: () => ({ name: 'Trigger' }), ...extra }) as unknown as IHookFunctions;

	it('accepts a context that carries the run data field, null as at activation', () => {
		expect(() => assertRunEndReadable(hookContext({ runExecutionData: null }))).not.toThrow();
	});

	it('refuses one without it, naming the supported n8n versions', () => {
		expect(() => assertRunEndReadable(hookContext({}))).toThrow(
			/^This version of n8n is not supported by the Contact Center Trigger/,
		);
		try {
			assertRunEndReadable(hookContext({}));
		} catch (error) {
			expect((error as { description?: string }).description).toContain(
				'n8n 2.36.0 or later (tested with 2.41.1)',
			);
		}
	});
});
