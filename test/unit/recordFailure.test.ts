import { failureMessage, isSizeLimitFailure, statusOf } from '../../nodes/shared/record/failure';

describe('a failed call to the record', () => {
	const sizeLimit = 'Data table size limit exceeded: 20MB used, limit is 0MB';

	test("adds n8n's explanation from the answer's body to httpRequest's message", () => {
		const error = {
			message: 'Request failed with status code 400',
			response: { status: 400, data: { message: sizeLimit } },
		};
		expect(failureMessage(error)).toBe(`Request failed with status code 400: ${sizeLimit}`);
		expect(statusOf(error)).toBe(400);
	});

	test('reads the answer nested under cause, as other n8n-core versions throw it', () => {
		const error = {
			message: 'failed',
			cause: { response: { status: 401, data: { message: 'unauthorized' } } },
		};
		expect(failureMessage(error)).toBe('failed: unauthorized');
		expect(statusOf(error)).toBe(401);
	});

	test('keeps the message as it is when the body explains nothing new or is not an object', () => {
		expect(
			failureMessage({ message: `400 - ${sizeLimit}`, response: { data: { message: sizeLimit } } }),
		).toBe(`400 - ${sizeLimit}`);
		expect(failureMessage({ message: 'x', response: { data: 'plain text' } })).toBe('x');
		expect(failureMessage({ message: 'x', response: { data: { message: 42 } } })).toBe('x');
		expect(failureMessage({ response: { data: null } })).toBe('request failed');
	});

	test('status 0 when there was no answer; httpCode first', () => {
		expect(statusOf({ message: 'ECONNREFUSED' })).toBe(0);
		expect(statusOf({ httpCode: '503', response: { status: 500 } })).toBe(503);
		expect(statusOf({ httpCode: 'not a number' })).toBe(0);
	});

	test("recognises n8n's size limit refusal, and nothing else", () => {
		expect(isSizeLimitFailure(`The record answered 400: ${sizeLimit}`)).toBe(true);
		expect(isSizeLimitFailure('The record answered 401: unauthorized')).toBe(false);
	});
});
