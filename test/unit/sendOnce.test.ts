import {
	DEFAULT_SEND_ONCE_HOURS,
	MAX_SEND_ONCE_HOURS,
	messageSendOnceKey,
	parseSentDetail,
	sendOnceScopeOf,
	sendOnceWindowMs,
	sentDetailText,
} from '../../nodes/ContactCenter/actions/proactiveMessage/send/onceSettings';

const message = {
	medium: 'TWILIO',
	channel: 'Appointments SMS',
	contact: '+31612345678',
	text: 'Your appointment is tomorrow at 10:00',
	metadata: { campaign: 'reminder', customerId: 'c-1' },
};

describe('messageSendOnceKey', () => {
	test('the same message gives the same key, whatever the order of its metadata', () => {
		const reordered = { ...message, metadata: { customerId: 'c-1', campaign: 'reminder' } };
		expect(messageSendOnceKey(reordered)).toBe(messageSendOnceKey(message));
	});

	test('the key starts with the contact and the medium, and holds no message text', () => {
		const key = messageSendOnceKey(message);
		expect(key.startsWith('+31612345678|TWILIO|')).toBe(true);
		expect(key).not.toContain('appointment');
		expect(key.length).toBeLessThan(80);
	});

	test.each([
		['contact', { contact: '+31612345679' }],
		['medium', { medium: 'MESSAGEBIRD' }],
		['channel', { channel: 'Other SMS' }],
		['text', { text: 'Your appointment is tomorrow at 11:00' }],
		['metadata value', { metadata: { campaign: 'reminder', customerId: 'c-2' } }],
		['metadata present or not', { metadata: undefined }],
	])('a different %s is a different message', (_field, change) => {
		expect(messageSendOnceKey({ ...message, ...change })).not.toBe(messageSendOnceKey(message));
	});
});

describe('sendOnceScopeOf', () => {
	test('one scope per workflow; an unsaved workflow has its own', () => {
		expect(sendOnceScopeOf('wf1')).toBe('send:wf1');
		expect(sendOnceScopeOf(undefined)).toBe('send:unsaved');
		expect(sendOnceScopeOf('')).toBe('send:unsaved');
	});
});

describe('sent detail', () => {
	test('round-trips the correlation id and the time', () => {
		const detail = { correlationId: 'c-123', sentAt: '2026-11-25T10:00:00.000Z' };
		expect(parseSentDetail(sentDetailText(detail), 0)).toEqual(detail);
	});

	test('a detail that is not one of ours gives an empty id and the row time', () => {
		const at = Date.UTC(2026, 10, 25, 9);
		expect(parseSentDetail('not json', at)).toEqual({
			correlationId: '',
			sentAt: new Date(at).toISOString(),
		});
		expect(parseSentDetail('{"correlationId":5}', at).correlationId).toBe('');
	});
});

describe('sendOnceWindowMs', () => {
	test('hours to ms, the default when not set', () => {
		expect(sendOnceWindowMs(2)).toBe(2 * 3_600_000);
		expect(sendOnceWindowMs(undefined)).toBe(DEFAULT_SEND_ONCE_HOURS * 3_600_000);
		expect(sendOnceWindowMs(MAX_SEND_ONCE_HOURS)).toBe(MAX_SEND_ONCE_HOURS * 3_600_000);
	});

	test.each([0, -1, MAX_SEND_ONCE_HOURS + 1, 'soon', Number.NaN])(
		'%p hours is refused (undefined)',
		(hours) => {
			expect(sendOnceWindowMs(hours)).toBeUndefined();
		},
	);
});
