/**
 * No error dropped without a line: every place in nodes/ that catches an error logs it (n8n's
 * logger), throws, passes the caught error on (returns it, keeps it, puts it in an output row), or
 * says in a "Safe to ignore: <why>" comment why nothing needs to be said.
 */
import * as errorHandlersModule from './errorHandlers';

interface Handler {
	where: string;
	text: string;
	logs: boolean;
	throws: boolean;
	passesOn: boolean;
	annotated: boolean;
}
const { errorHandlersUnder, handlersOf } = errorHandlersModule as {
	errorHandlersUnder: (directory: string) => Handler[];
	handlersOf: (file: string, text: string) => Handler[];
};

const dropsItsError = (handler: Handler) =>
	!(handler.logs || handler.throws || handler.passesOn || handler.annotated);

test('every catch in nodes/ logs, throws, passes its error on, or says why it is safe to ignore', () => {
	const handlers = errorHandlersUnder('nodes');
	// The scan sees the handlers there are (a broken scan would find none and pass).
	expect(handlers.length).toBeGreaterThan(30);
	expect(handlers.filter(dropsItsError).map((h) => `${h.where}: ${h.text}`)).toEqual([]);
});

test('the scan tells a dropped error from a handled one', () => {
	const handlers = handlersOf(
		'sample.ts',
		[
			'async function sample(context: any, work: Promise<unknown>) {',
			'	try { JSON.parse("x"); } catch { /* nothing to see */ }',
			'	await work.catch(() => undefined);',
			'	await work.then(() => 1, () => 0);',
			'	try { JSON.parse("x"); } catch (error) { context.logger.warn(`no: ${error}`); }',
			'	try { JSON.parse("x"); } catch { throw new Error("bad"); }',
			'	await work.catch((error: Error) => ({ failed: error.message }));',
			'	// Safe to ignore: the promise is awaited again where its error is reported.',
			'	await work.catch(() => undefined);',
			'	try { JSON.parse("x"); } catch {',
			'		// Safe to ignore: not JSON is the answer.',
			'	}',
			'	const s = "} catch { ";',
			'	return s;',
			'}',
		].join('\n'),
	);
	expect(handlers.map((h) => [h.where.replace(/^.*:/, ''), dropsItsError(h)])).toEqual([
		['2', true],
		['3', true],
		['4', true],
		['5', false],
		['6', false],
		['7', false],
		['9', false],
		['10', false],
	]);
});
