'use strict';

/**
 * Bodies of the three calls the service makes to the customer's endpoints (spec 2.9, 2.11, 2.12),
 * filled with sample values: what the simulator delivers when asked to call a lookup, write back
 * or notification endpoint without a body of the caller's own.
 */

const crypto = require('node:crypto');

/** Lookup request (2.9): one key per lookup attribute; the spec's sample attribute is an e-mail. */
function lookupRequest(email = 'ada@example.com') {
	return { email };
}

/**
 * Write back request (2.11) of a resolved conversation. `data` fields in `extra` are added to the
 * payload's data (or replace the sample's).
 */
function writeBackRequest({
	idempotencyKey = crypto.randomUUID(),
	conversationId = `conv-${idempotencyKey}`,
	type = 'CONVERSATION_RESOLVED',
	extra = {},
} = {}) {
	return {
		type,
		version: 1,
		idempotencyKey,
		data: {
			medium: { id: 'whatsapp' },
			channel: { id: 'ch-1', name: 'Support WhatsApp' },
			contactProfile: {
				id: 'cp-1',
				mediumContactProfileId: 'wa-31612345678',
				primaryIdentifier: '+31612345678',
				secondaryIdentifier: 'Ada',
				pictureUrl: 'https://example.com/ada.png',
			},
			conversation: {
				id: conversationId,
				createdAt: '2026-11-22T09:00:00.000+01:00',
				previousStatus: 'new',
				currentStatus: type === 'CONVERSATION_SET_TO_PENDING' ? 'pending' : 'resolved',
			},
			statusUpdatedAt: '2026-11-22T09:15:00.000+01:00',
			statusUpdatedReason: 'agentResolved',
			agent: { id: 'ag-1', firstName: 'Alan', lastName: 'Turing', email: 'alan@example.com' },
			contactAttributes: [
				{ attribute: 'email', value: 'ada@example.com', source: 'CRM_CONFIRMED' },
			],
			messages: [
				{ id: 'm1', direction: 'INBOUND', text: 'Where is my order?' },
				{ id: 'm2', direction: 'OUTBOUND', text: 'It ships today.' },
			],
			notes: [],
			topics: [{ id: 't1', name: 'Order status' }],
			...extra,
		},
	};
}

/** Notification request (2.12) of the one documented event type. */
function notificationRequest({ timestamp = new Date().toISOString(), messages } = {}) {
	return {
		timestamp,
		version: 1,
		eventType: 'DATA_IMPORT_ERROR',
		messages: messages ?? ['Attribute tier: value exceeds the maximum length of 32'],
	};
}

module.exports = { lookupRequest, writeBackRequest, notificationRequest };
