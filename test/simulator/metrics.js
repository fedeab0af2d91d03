'use strict';

/**
 * Metrics endpoints (spec 4.5) with the exact parameter matrix of the spec.
 * evaluateMetric() returns { status, body } and never throws for bad input.
 */

const crypto = require('node:crypto');

const MEDIUM_IDS = [
	'fb',
	'twit',
	'instagram',
	'messagebird',
	'rtm',
	'whatsapp',
	'twilio',
	'wechat',
	'mailgun',
	'telegram',
	'viber',
];
const DAY_MS = 86_400_000;
const HISTORY_DEPTH_MS = 14 * DAY_MS;
const MAX_INTERVALS = 60;
const INTERVAL_MS = { minute: 60_000, hour: 3_600_000, day: DAY_MS };
const PRESENCE_STATUSES = ['away', 'available'];
const QUEUE_STATUSES = ['new', 'pending'];

const R = 'required';
const O = 'optional';
const volumeParameters = {
	from: R,
	to: O,
	mediumId: O,
	channelId: O,
	groupByInterval: O,
	timezone: O,
};
const rangeParameters = (from) => ({ from, to: O, mediumId: O, channelId: O });
const queueParameters = { mediumId: O, channelId: O, status: R };

/** Path -> parameters the endpoint reads; any other query parameter is ignored. */
const METRIC_ENDPOINTS = {
	'/reporting-metrics/inbound-message-volume': volumeParameters,
	'/reporting-metrics/outbound-message-volume': volumeParameters,
	'/reporting-metrics/first-response-time': rangeParameters(R),
	'/reporting-metrics/resolved-with-one-reply': rangeParameters(O),
	'/reporting-metrics/handle-time': rangeParameters(R),
	'/reporting-metrics/agent-availability': { channelId: O, userPresenceStatus: O },
	'/queue-metrics/contacts-waiting': queueParameters,
	'/queue-metrics/longest-wait-time': queueParameters,
};

// ISO-8601 date-time in extended format; the offset is optional (no offset = UTC).
const ISO_DATE_TIME =
	/^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-](\d{2}):(\d{2}))?$/;

function parseIsoDateTime(value) {
	const match = ISO_DATE_TIME.exec(value);
	if (!match) return undefined;
	const [, year, month, day, hour, minute, second = '0', fraction = '0', offset, offH, offM] =
		match;
	const fields = [year, month, day, hour, minute, second].map(Number);
	const local = Date.UTC(fields[0], fields[1] - 1, fields[2], fields[3], fields[4], fields[5]);
	const roundTrip = new Date(local);
	const valid =
		roundTrip.getUTCFullYear() === fields[0] &&
		roundTrip.getUTCMonth() === fields[1] - 1 &&
		roundTrip.getUTCDate() === fields[2] &&
		roundTrip.getUTCHours() === fields[3] &&
		roundTrip.getUTCMinutes() === fields[4] &&
		roundTrip.getUTCSeconds() === fields[5] &&
		(offset === undefined || offset === 'Z' || (Number(offH) <= 18 && Number(offM) <= 59));
	if (!valid) return undefined;
	const offsetMs =
		offset === undefined || offset === 'Z'
			? 0
			: (offset.startsWith('-') ? -1 : 1) * (Number(offH) * 60 + Number(offM)) * 60_000;
	return local + Math.floor(Number(`0.${fraction}`) * 1000) - offsetMs;
}

function isValidTimeZone(name) {
	try {
		new Intl.DateTimeFormat('en-US', { timeZone: name });
		return true;
	} catch {
		return false;
	}
}

function badParameters(causes) {
	return {
		status: 400,
		body: { errors: causes.map((cause) => `Bad request parameters: ${cause}`), errorType: null },
	};
}

function missingStatusParameter(path, nowMs) {
	return {
		status: 400,
		body: {
			timestamp: nowMs,
			status: 400,
			error: 'Bad Request',
			exception: 'org.springframework.web.bind.MissingServletRequestParameterException',
			message: "Required String parameter 'status' is not present",
			path,
		},
	};
}

function deterministicValue(...parts) {
	const digest = crypto.createHash('sha256').update(parts.join('\u0000')).digest();
	return digest.readUInt32BE(0) % 1000;
}

/**
 * @param {string} path one of METRIC_ENDPOINTS' keys
 * @param {URLSearchParams} query
 * @param {number} nowMs
 * @param {string} [requestPath] the path as sent, for the Spring error body
 */
function evaluateMetric(path, query, nowMs, requestPath = path) {
	const accepted = METRIC_ENDPOINTS[path];
	const params = {};
	const causes = [];
	for (const name of Object.keys(accepted)) {
		const values = query.getAll(name);
		if (values.length > 1) causes.push(`${name} must be given at most once`);
		if (values.length > 0) params[name] = values[0];
	}
	if (accepted.status === R && params.status === undefined) {
		return missingStatusParameter(requestPath, nowMs);
	}

	let fromMs;
	if (accepted.from === R && params.from === undefined) {
		causes.push('from is required');
	} else if (params.from !== undefined) {
		fromMs = parseIsoDateTime(params.from);
		if (fromMs === undefined) {
			causes.push(`from must be an ISO-8601 date-time, got '${params.from}'`);
		} else if (accepted.from === R && fromMs < nowMs - HISTORY_DEPTH_MS) {
			causes.push('from must be at most 14 days in the past');
		}
	}
	let toMs = nowMs;
	if (params.to !== undefined) {
		toMs = parseIsoDateTime(params.to);
		if (toMs === undefined) causes.push(`to must be an ISO-8601 date-time, got '${params.to}'`);
	}
	if (fromMs !== undefined && toMs !== undefined && toMs < fromMs) {
		causes.push(
			params.to === undefined ? 'from must not be in the future' : 'to must not be before from',
		);
	}

	const emptyQueueMedium = accepted.status === R && params.mediumId === '';
	if (params.mediumId !== undefined && !emptyQueueMedium && !MEDIUM_IDS.includes(params.mediumId)) {
		causes.push(`mediumId must be one of ${MEDIUM_IDS.join(', ')}, got '${params.mediumId}'`);
	}
	if (params.groupByInterval !== undefined) {
		const intervalMs = INTERVAL_MS[params.groupByInterval];
		if (intervalMs === undefined) {
			causes.push(
				`groupByInterval must be one of minute, hour, day, got '${params.groupByInterval}'`,
			);
		} else if (fromMs !== undefined && toMs !== undefined && toMs >= fromMs) {
			if (Math.ceil((toMs - fromMs) / intervalMs) > MAX_INTERVALS) {
				causes.push(
					`at most ${MAX_INTERVALS} intervals of one ${params.groupByInterval} per request`,
				);
			}
		}
	}
	if (params.timezone !== undefined && !isValidTimeZone(params.timezone)) {
		causes.push(`timezone '${params.timezone}' is not a known time zone`);
	}
	if (
		params.userPresenceStatus !== undefined &&
		!PRESENCE_STATUSES.includes(params.userPresenceStatus)
	) {
		causes.push(`userPresenceStatus must be away or available, got '${params.userPresenceStatus}'`);
	}
	if (params.status !== undefined && !QUEUE_STATUSES.includes(params.status)) {
		causes.push(`status must be new or pending, got '${params.status}'`);
	}
	if (causes.length > 0) return badParameters(causes);

	if (emptyQueueMedium) return { status: 200, body: { dataPoint: { value: null } } };
	if (accepted.userPresenceStatus && params.userPresenceStatus === undefined) {
		return { status: 200, body: { dataPoint: { value: 0 } } };
	}
	const key = Object.keys(params)
		.sort()
		.map((name) => `${name}=${params[name]}`);
	if (params.groupByInterval !== undefined) {
		const intervalMs = INTERVAL_MS[params.groupByInterval];
		const count = Math.ceil((toMs - fromMs) / intervalMs);
		const dataPoints = Array.from({ length: count }, (_, index) => ({
			timestamp: new Date(fromMs + index * intervalMs).toISOString(),
			value: deterministicValue(path, ...key, index) % 100,
		}));
		return { status: 200, body: { dataPoints } };
	}
	return { status: 200, body: { dataPoint: { value: deterministicValue(path, ...key) } } };
}

module.exports = { METRIC_ENDPOINTS, MEDIUM_IDS, evaluateMetric, parseIsoDateTime };
