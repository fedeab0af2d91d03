import { createHash, randomUUID } from 'crypto';

import type { IDataObject } from 'n8n-workflow';

import { parseJsonObjectBody } from '../../nodes/ContactCenterTrigger/helpers/body';
import {
	DEFAULT_DEDUP_LIMITS,
	idempotencyKeyOf,
	idempotencyKeyStoreOf,
	IdempotencyKeyStore,
	RETRY_WINDOW_MS,
	type DedupLimits,
	fingerprintOf,
	PERSISTED_RECORD_LENGTH,
} from '../../nodes/ContactCenterTrigger/helpers/dedup';
import {
	buildAttributes,
	buildLookupFoundBody,
	buildLookupHttpResponse,
	toAttributeValue,
} from '../../nodes/shared/lookupResponse';
import { getRawBody, type RawBodyRequest } from '../../nodes/ContactCenterTrigger/helpers/request';
import { simplifyWriteBack } from '../../nodes/ContactCenterTrigger/helpers/simplify';

const HOUR = 60 * 60 * 1000;
const T0 = Date.UTC(2024, 0, 1);
const MINUTE = 60 * 1000;

describe('raw body access', () => {
	it('uses the bytes n8n kept on rawBody', async () => {
		const rawBody = Buffer.from('{"a":1}');
		await expect(getRawBody({ rawBody })).resolves.toBe(rawBody);
	});

	it("reads them first through n8n's readRawBody when the body was left unread", async () => {
		const req: RawBodyRequest = {
			readRawBody: async () => {
				req.rawBody = Buffer.from('{"read":true}');
			},
		};
		await expect(getRawBody(req)).resolves.toEqual(Buffer.from('{"read":true}'));
	});

	it('has nothing to check when there are no bytes and no way to read them', async () => {
		await expect(getRawBody({})).resolves.toBeUndefined();
	});
});

describe('JSON body parsing (after the signature check)', () => {
	it('parses a JSON object, tolerating a byte order mark', () => {
		expect(parseJsonObjectBody(Buffer.from('\uFEFF{"a":1}'))).toEqual({
			ok: true,
			value: { a: 1 },
		});
	});

	it.each([
		['not JSON', '{not json', 'not valid JSON'],
		['empty', '', 'empty'],
		['an array', '[1,2]', 'not a JSON object'],
		['a string', '"text"', 'not a JSON object'],
		['null', 'null', 'not a JSON object'],
	])('refuses a body that is %s', (_label, text, detail) => {
		const result = parseJsonObjectBody(Buffer.from(text));
		expect(result.ok).toBe(false);
		expect(!result.ok && result.detail).toContain(detail);
	});
});

describe('idempotency-key store', () => {
	const small: DedupLimits = { retentionMs: DEFAULT_DEDUP_LIMITS.retentionMs, maxKeys: 3 };
	/** As n8n saves static data and loads it again. */
	const roundTrip = (store: IdempotencyKeyStore) =>
		JSON.parse(JSON.stringify(store.toPersisted())) as unknown;

	it('keeps keys for longer than the 63-hour retry window', () => {
		expect(RETRY_WINDOW_MS).toBe((1 + 2 + 4 + 8 + 16 + 32) * HOUR);
		expect(DEFAULT_DEDUP_LIMITS.retentionMs).toBeGreaterThanOrEqual(RETRY_WINDOW_MS);
	});

	it('remembers a key by a 72-bit SHA-256 fingerprint', () => {
		expect(fingerprintOf('k1')).toBe('arnx6499M4j0');
		expect(fingerprintOf('k1')).toBe(
			createHash('sha256').update('k1').digest('base64url').slice(0, 12),
		);
		expect(fingerprintOf('k2')).not.toBe(fingerprintOf('k1'));
	});

	it('saves its keys as one string of 18-character records, oldest first, and reads them back', () => {
		const store = new IdempotencyKeyStore();
		store.record('k1', 'done', T0);
		store.record('k2', 'pending', T0 + 1);
		// T0 is minute 'gwqg0' in base 36; T0 + 1 ms is rounded up to the next minute.
		expect(store.toPersisted()).toEqual({
			records: `${fingerprintOf('k1')}gwqg0d${fingerprintOf('k2')}gwqg1p`,
			writtenBy: expect.any(String),
		});
		expect(PERSISTED_RECORD_LENGTH).toBe(18);

		const reloaded = new IdempotencyKeyStore();
		reloaded.merge(roundTrip(store));
		expect(reloaded.lookup('k1', T0 + HOUR)).toBe('done');
		expect(reloaded.lookup('k2', T0 + HOUR)).toBe('pending');
		expect(reloaded.lookup('k3', T0 + HOUR)).toBe('new');
	});

	it('saves 10 000 UUID keys in 18 bytes each', () => {
		const store = new IdempotencyKeyStore();
		for (let i = 0; i < 10_000; i++) store.record(randomUUID(), 'done', T0 + i);
		expect(JSON.stringify(store.toPersisted().records)).toHaveLength(18 * 10_000 + 2);
	});

	it.each([
		['garbage', 'garbage'],
		['null', null],
		['records that are not a string', { records: ['a', 'b'] }],
		[
			'bad records among good ones',
			{
				records: `${'!'.repeat(12)}gwqg0d${fingerprintOf('c')}gwqg0d${fingerprintOf('x')}gwqg0x${fingerprintOf('y')}gwq`,
			},
		],
		['the earlier three-array shape', { keys: ['c'], seenAt: [T0], states: 'd' }],
	])('skips what it cannot read in saved data (%s)', (_label, saved) => {
		const store = new IdempotencyKeyStore();
		expect(() => store.merge(saved)).not.toThrow();
		expect(store.size).toBeLessThanOrEqual(1);
		expect(store.lookup('x', T0)).toBe('new');
		expect(store.lookup('y', T0)).toBe('new');
	});

	it('merges saved keys with its own: the later sighting wins and the order stays by age', () => {
		const store = new IdempotencyKeyStore(small);
		store.record('mine', 'pending', T0 + 10 * MINUTE);
		const other = new IdempotencyKeyStore(small);
		other.record('old', 'done', T0);
		other.record('mine', 'done', T0 + 5 * MINUTE);
		other.record('newer', 'done', T0 + 20 * MINUTE);
		store.merge(roundTrip(other));
		expect(store.toPersisted().records).toBe(
			[
				`${fingerprintOf('old')}gwqg0d`,
				`${fingerprintOf('mine')}gwqgap`,
				`${fingerprintOf('newer')}gwqgkd`,
			].join(''),
		);
		store.record('fourth', 'done', T0 + 30 * MINUTE);
		expect(store.lookup('old', T0 + 30 * MINUTE)).toBe('new');
		expect(store.lookup('mine', T0 + 30 * MINUTE)).toBe('pending');
		expect(store.size).toBe(3);
	});

	it('does not take back keys it already dropped at the cap', () => {
		const store = new IdempotencyKeyStore(small);
		const other = new IdempotencyKeyStore(small);
		for (let i = 1; i <= 2; i++) other.record(`k${i}`, 'done', T0 + i * MINUTE);
		for (let i = 1; i <= 5; i++) store.record(`k${i}`, 'done', T0 + i * MINUTE);
		store.merge(roundTrip(other));
		expect(store.lookup('k1', T0 + 6 * MINUTE)).toBe('new');
		expect(store.lookup('k2', T0 + 6 * MINUTE)).toBe('new');
		expect(store.size).toBe(3);
	});

	it('remembers a key through the last retry (63 h) and forgets it after the retention', () => {
		const store = new IdempotencyKeyStore();
		store.record('k1', 'done', T0);
		expect(store.lookup('k1', T0 + RETRY_WINDOW_MS)).toBe('done');
		const after = T0 + DEFAULT_DEDUP_LIMITS.retentionMs + 1;
		expect(store.lookup('k1', after)).toBe('new');
		store.prune(after);
		expect(store.size).toBe(0);
	});

	it('keeps a key for the full retention after its last sighting', () => {
		const store = new IdempotencyKeyStore();
		store.record('k1', 'done', T0);
		store.record('k2', 'done', T0 + HOUR);
		store.touch('k1', T0 + 60 * HOUR);
		store.prune(T0 + 100 * HOUR);
		expect(store.lookup('k1', T0 + 100 * HOUR)).toBe('done');
		expect(store.lookup('k2', T0 + 100 * HOUR)).toBe('new');
		expect(store.size).toBe(1);
	});

	it('is bounded: the oldest keys go first', () => {
		const store = new IdempotencyKeyStore(small);
		for (let i = 1; i <= 5; i++) store.record(`k${i}`, 'done', T0 + i);
		expect(store.size).toBe(3);
		expect(store.lookup('k1', T0 + 10)).toBe('new');
		expect(store.lookup('k2', T0 + 10)).toBe('new');
		expect(store.lookup('k3', T0 + 10)).toBe('done');
	});

	it('lets a pending key become done', () => {
		const store = new IdempotencyKeyStore();
		store.record('k1', 'pending', T0);
		expect(store.lookup('k1', T0 + HOUR)).toBe('pending');
		store.record('k1', 'done', T0 + 3 * HOUR);
		expect(store.toPersisted().records).toBe(`${fingerprintOf('k1')}gwql0d`);
	});

	it('skips merging a copy it wrote itself, and merges the copy of another store', () => {
		const store = new IdempotencyKeyStore();
		store.record('k1', 'done', T0);
		const other = new IdempotencyKeyStore();
		other.record('k1', 'done', T0);
		other.record('k2', 'done', T0);
		const { records } = other.toPersisted();
		store.merge({ records, writtenBy: store.toPersisted().writtenBy });
		expect(store.lookup('k2', T0 + 2)).toBe('new');

		store.merge({ records, writtenBy: other.toPersisted().writtenBy });
		expect(store.lookup('k2', T0 + 2)).toBe('done');
	});

	it('keeps one store per workflow and trigger node in the process, and releases idle ones', () => {
		const a = idempotencyKeyStoreOf('wf-1', 'node-1', T0);
		expect(idempotencyKeyStoreOf('wf-1', 'node-1', T0 + 1)).toBe(a);
		expect(idempotencyKeyStoreOf('wf-1', 'node-2', T0)).not.toBe(a);
		expect(idempotencyKeyStoreOf('wf-2', 'node-1', T0)).not.toBe(a);
		const later = T0 + DEFAULT_DEDUP_LIMITS.retentionMs + 2;
		idempotencyKeyStoreOf('wf-3', 'node-1', later);
		expect(idempotencyKeyStoreOf('wf-1', 'node-1', later)).not.toBe(a);
	});

	it('reads the idempotency key of a payload', () => {
		expect(idempotencyKeyOf({ idempotencyKey: 'abc' })).toBe('abc');
		expect(idempotencyKeyOf({ idempotencyKey: 12 })).toBe('12');
		expect(idempotencyKeyOf({ idempotencyKey: '  ' })).toBeUndefined();
		expect(idempotencyKeyOf({ idempotencyKey: { a: 1 } })).toBeUndefined();
		expect(idempotencyKeyOf({})).toBeUndefined();
	});
});

describe('write back simplification', () => {
	const resolved: IDataObject = {
		type: 'CONVERSATION_RESOLVED',
		version: 1,
		idempotencyKey: 'key-1',
		data: {
			medium: { id: 'whatsapp' },
			channel: { id: 'ch-1', name: 'Support' },
			contactProfile: {
				id: 'cp-1',
				mediumContactProfileId: 'm-1',
				primaryIdentifier: '+3212345678',
				secondaryIdentifier: 'Ana',
				pictureUrl: 'https://example.com/a.png',
			},
			conversation: {
				id: 'conv-1',
				createdAt: '2024-01-01T10:00:00+01:00',
				previousStatus: 'new',
				currentStatus: 'resolved',
			},
			statusUpdatedAt: '2024-01-01T11:00:00+01:00',
			statusUpdatedReason: 'agentResolved',
			agent: { id: 'ag-1', firstName: 'Bo', lastName: 'Lee', email: 'bo@example.com' },
			contactAttributes: [
				{ attribute: 'email', value: 'ana@example.com', source: 'CRM_CONFIRMED' },
				{ attribute: 'tier', value: 'gold', source: 'AGENT' },
			],
			messages: [
				{ id: 'm1', direction: 'INBOUND', text: 'Hello' },
				{ id: 'm2', direction: 'OUTBOUND', text: 'Hi Ana' },
			],
			notes: [
				{
					id: 'n1',
					text: 'Called back',
					creationUser: 'u1',
					creationTimestamp: '2024-01-01T10:30:00+01:00',
				},
			],
			topics: [
				{ id: 't1', name: 'Billing' },
				{ id: 't2', name: 'Refund' },
			],
		},
	};

	it('flattens a resolved conversation into one row', () => {
		expect(simplifyWriteBack(resolved)).toEqual({
			idempotencyKey: 'key-1',
			type: 'CONVERSATION_RESOLVED',
			version: 1,
			conversationId: 'conv-1',
			conversationCreatedAt: '2024-01-01T10:00:00+01:00',
			previousStatus: 'new',
			currentStatus: 'resolved',
			statusUpdatedAt: '2024-01-01T11:00:00+01:00',
			statusUpdatedReason: 'agentResolved',
			mediumId: 'whatsapp',
			channelId: 'ch-1',
			channelName: 'Support',
			contactProfileId: 'cp-1',
			contactMediumProfileId: 'm-1',
			contactPrimaryIdentifier: '+3212345678',
			contactSecondaryIdentifier: 'Ana',
			contactPictureUrl: 'https://example.com/a.png',
			agentId: 'ag-1',
			agentName: 'Bo Lee',
			agentEmail: 'bo@example.com',
			contactAttributes: { email: 'ana@example.com', tier: 'gold' },
			messageCount: 2,
			transcript: 'INBOUND: Hello\nOUTBOUND: Hi Ana',
			notes: 'Called back',
			topics: 'Billing, Refund',
		});
	});

	it('copes with the reduced twit payload (fields omitted)', () => {
		const twit = {
			type: 'CONVERSATION_SET_TO_PENDING',
			version: 1,
			idempotencyKey: 'k',
			data: { medium: { id: 'twit' } },
		};
		expect(simplifyWriteBack(twit)).toMatchObject({
			type: 'CONVERSATION_SET_TO_PENDING',
			mediumId: 'twit',
			contactPrimaryIdentifier: null,
			agentName: null,
			contactAttributes: {},
			messageCount: 0,
			transcript: '',
		});
	});

	it('passes unknown types on as sent', () => {
		const unknown = {
			type: 'CONTACT_MERGED',
			version: 3,
			idempotencyKey: 'k',
			data: { whatever: [1] },
		};
		expect(simplifyWriteBack(unknown)).toBe(unknown);
	});
});

describe('lookup response building', () => {
	it('keeps text and null, turns numbers and booleans into text', () => {
		expect(toAttributeValue('x', true)).toEqual({ ok: true, value: 'x' });
		expect(toAttributeValue(null, false)).toEqual({ ok: true, value: null });
		expect(toAttributeValue(undefined, false)).toEqual({ ok: true, value: null });
		expect(toAttributeValue(42, false)).toEqual({ ok: true, value: '42' });
		expect(toAttributeValue(false, false)).toEqual({ ok: true, value: 'false' });
	});

	it('sends an empty value as null or as empty text, as chosen', () => {
		expect(toAttributeValue('', true)).toEqual({ ok: true, value: null });
		expect(toAttributeValue('', false)).toEqual({ ok: true, value: '' });
	});

	it('refuses objects and arrays, naming the alias', () => {
		expect(
			buildAttributes(
				[
					['email', 'a'],
					['address', { city: 'x' }],
				],
				true,
			),
		).toEqual({
			ok: false,
			alias: 'address',
			detail: 'is an object; the service accepts only text or null',
		});
		expect(buildAttributes([['tags', ['a']]], true)).toMatchObject({ ok: false, alias: 'tags' });
		expect(buildAttributes([['  ', 'a']], true)).toMatchObject({
			ok: false,
			detail: 'has an empty alias',
		});
	});

	it('builds the 200 body of spec 2.10 and the 404', () => {
		const built = buildAttributes(
			[
				['email', 'ana@example.com'],
				[' phone ', null],
			],
			true,
		);
		expect(built).toEqual({ ok: true, attributes: { email: 'ana@example.com', phone: null } });
		const body = buildLookupFoundBody(built.ok ? built.attributes : {}, true);
		expect(buildLookupHttpResponse(body)).toEqual({
			statusCode: 200,
			headers: { 'content-type': 'application/json; charset=utf-8' },
			body: { autoConfirm: true, attributes: { email: 'ana@example.com', phone: null } },
		});
		expect(buildLookupHttpResponse(undefined)).toEqual({
			statusCode: 404,
			headers: {},
			body: Buffer.alloc(0),
		});
	});
});
