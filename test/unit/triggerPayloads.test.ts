import type { IDataObject } from 'n8n-workflow';

import { parseJsonObjectBody } from '../../nodes/ContactCenterTrigger/body';
import { getRawBody, type RawBodyRequest } from '../../nodes/ContactCenterTrigger/request';
import { simplifyWriteBack } from '../../nodes/ContactCenterTrigger/simplify';
import { idempotencyKeyOf } from '../../nodes/ContactCenterTrigger/writeBack.endpoint';
import {
	buildAttributes,
	buildLookupFoundBody,
	buildLookupHttpResponse,
	toAttributeValue,
} from '../../nodes/shared/lookupResponse';

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

describe('idempotency key of a write back', () => {
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
