import type { IDataObject } from 'n8n-workflow';

import { parseJsonObjectBody } from '../../nodes/ContactCenterTrigger/helpers/body';
import {
	DEDUP_STATIC_KEY,
	DEFAULT_DEDUP_LIMITS,
	getDedupStore,
	idempotencyKeyOf,
	lookupKey,
	pruneDedupStore,
	recordRun,
	RETRY_WINDOW_MS,
	touchKey,
	type DedupLimits,
} from '../../nodes/ContactCenterTrigger/helpers/dedup';
import {
	buildAttributes,
	buildLookupFoundBody,
	buildLookupHttpResponse,
	toAttributeValue,
} from '../../nodes/ContactCenterTrigger/helpers/lookupResponse';
import { getRawBody, type RawBodyRequest } from '../../nodes/ContactCenterTrigger/helpers/request';
import { simplifyWriteBack } from '../../nodes/ContactCenterTrigger/helpers/simplify';

const HOUR = 60 * 60 * 1000;
const T0 = Date.UTC(2024, 0, 1);

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
	it('keeps keys for longer than the 63-hour retry window', () => {
		expect(RETRY_WINDOW_MS).toBe((1 + 2 + 4 + 8 + 16 + 32) * HOUR);
		expect(DEFAULT_DEDUP_LIMITS.retentionMs).toBeGreaterThanOrEqual(RETRY_WINDOW_MS);
	});

	it('lives in the static data it is given and survives a JSON round trip (as n8n saves it)', () => {
		const staticData: IDataObject = {};
		recordRun(getDedupStore(staticData), 'k1', 'done', T0, DEFAULT_DEDUP_LIMITS);
		const reloaded = JSON.parse(JSON.stringify(staticData)) as IDataObject;
		expect(reloaded[DEDUP_STATIC_KEY]).toEqual({ k1: { at: T0, state: 'done', runs: 1 } });
		expect(lookupKey(getDedupStore(reloaded), 'k1', T0 + HOUR, DEFAULT_DEDUP_LIMITS)).toBe('done');
	});

	it('replaces an unreadable store instead of failing', () => {
		const staticData: IDataObject = { [DEDUP_STATIC_KEY]: 'garbage' };
		expect(getDedupStore(staticData)).toEqual({});
		const store = getDedupStore({
			[DEDUP_STATIC_KEY]: { bad: { at: 'x' }, good: { at: T0, state: 'done', runs: 1 } },
		});
		pruneDedupStore(store, T0, DEFAULT_DEDUP_LIMITS);
		expect(Object.keys(store)).toEqual(['good']);
	});

	it('remembers a key through the last retry (63 h) and forgets it after the retention', () => {
		const store = getDedupStore({});
		recordRun(store, 'k1', 'done', T0, DEFAULT_DEDUP_LIMITS);
		expect(lookupKey(store, 'k1', T0 + RETRY_WINDOW_MS, DEFAULT_DEDUP_LIMITS)).toBe('done');
		expect(
			lookupKey(store, 'k1', T0 + DEFAULT_DEDUP_LIMITS.retentionMs + 1, DEFAULT_DEDUP_LIMITS),
		).toBe('new');
		pruneDedupStore(store, T0 + DEFAULT_DEDUP_LIMITS.retentionMs + 1, DEFAULT_DEDUP_LIMITS);
		expect(store).toEqual({});
	});

	it('keeps a key for the full retention after its last sighting', () => {
		const store = getDedupStore({});
		recordRun(store, 'k1', 'done', T0, DEFAULT_DEDUP_LIMITS);
		touchKey(store, 'k1', T0 + 60 * HOUR);
		expect(lookupKey(store, 'k1', T0 + 100 * HOUR, DEFAULT_DEDUP_LIMITS)).toBe('done');
	});

	it('is bounded: the oldest keys go first', () => {
		const limits: DedupLimits = { retentionMs: DEFAULT_DEDUP_LIMITS.retentionMs, maxKeys: 3 };
		const store = getDedupStore({});
		for (let i = 1; i <= 5; i++) recordRun(store, `k${i}`, 'done', T0 + i, limits);
		expect(Object.keys(store).sort()).toEqual(['k3', 'k4', 'k5']);
		expect(lookupKey(store, 'k1', T0 + 10, limits)).toBe('new');
	});

	it('counts the runs of a key and lets a pending key become done', () => {
		const store = getDedupStore({});
		recordRun(store, 'k1', 'pending', T0, DEFAULT_DEDUP_LIMITS);
		expect(lookupKey(store, 'k1', T0 + HOUR, DEFAULT_DEDUP_LIMITS)).toBe('pending');
		recordRun(store, 'k1', 'pending', T0 + HOUR, DEFAULT_DEDUP_LIMITS);
		recordRun(store, 'k1', 'done', T0 + 3 * HOUR, DEFAULT_DEDUP_LIMITS);
		expect(store.k1).toEqual({ at: T0 + 3 * HOUR, state: 'done', runs: 3 });
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
			body: undefined,
		});
	});
});
