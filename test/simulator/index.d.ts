/** Types of the service simulator (index.js). See README.md for the behaviour. */

export interface SimulatorClient {
	clientId: string;
	clientSecret: string;
	organization: string;
}

export interface SendRateLimit {
	limit: number;
	windowMs: number;
}

export type RateLimitResponse = 'status429' | 'errors400';

export interface SimulatorOptions {
	host?: string;
	/** 0 = a random free port. */
	port?: number;
	clients?: SimulatorClient[];
	tokenTtlSeconds?: number;
	/** Sliding window per organization over accepted sends. */
	sendRateLimit?: SendRateLimit;
	rateLimitResponse?: RateLimitResponse;
	/** Added to every service API response (not to /__sim/ routes). */
	latencyMs?: number;
	/** Clock in epoch milliseconds for token expiry, rate limit, settling and the metrics rules. */
	now?: () => number;
	/** Hex CRM signing secret. */
	signingSecret?: string;
	/** A message stays PROCESSING this long after it was received. */
	settleAfterMs?: number;
	/** Then a message that ends DELIVERED or DELIVERING_FAILED is SENT this long first (default 0). */
	sentForMs?: number;
	/** Send `total` of the status overview as a string. */
	totalAsString?: boolean;
}

export interface SimulatorCounters {
	tokenRequests: number;
	tokensIssued: number;
	tokenRequestsRefused: number;
	sendsAccepted: number;
	sendsRefusedRateLimit: number;
	sendsRefusedValidation: number;
	unauthorized: number;
	statusRequests: number;
	/** Calls of GET /proactive-messaging/{id}/{status}. */
	failedRequests: number;
	metricRequests: number;
}

export type MessageStatus = 'PROCESSING' | 'FAILED' | 'SENT' | 'DELIVERED' | 'DELIVERING_FAILED';

export interface ParsedTemplate {
	namespace: string;
	template: string;
	fallback: string;
	language: string;
	bodyText: string[];
}

export interface SendBody {
	medium: 'MESSAGEBIRD' | 'TWILIO' | 'WHATSAPP';
	channel: string;
	contact: string;
	text: string;
	metadata?: Record<string, string>;
	[field: string]: unknown;
}

export interface SimulatedMessage {
	correlationId: string;
	organization: string;
	/** The request body as received. */
	body: SendBody;
	/** Epoch milliseconds by the simulator clock. */
	receivedAt: number;
	status: MessageStatus;
	reason?: string;
	/** While SENT on the way to DELIVERED or DELIVERING_FAILED: when it gets there (simulator clock). */
	sentUntil?: number;
	/** Present for WHATSAPP texts in template shorthand. */
	template?: ParsedTemplate;
}

export interface LoggedRequest {
	method: string;
	/** Path as sent, without the query string. */
	path: string;
	/** A repeated parameter is an array. */
	query: Record<string, string | string[]>;
	headers: Record<string, string | string[] | undefined>;
	/** Parsed JSON or form body, else the raw text; undefined when empty. */
	body: unknown;
	/** 0 when the connection was reset without an answer (an injected fault). */
	status: number;
	/** Epoch milliseconds by the simulator clock. */
	at: number;
}

export interface CrmDelivery {
	url: string;
	/** Sent as is when a string, else JSON-stringified. */
	body: unknown;
	/** Hex secret; default: the simulator's signing secret. */
	secret?: string;
	/** Sent instead of the computed signature. */
	signature?: string;
	/** Extra request headers; they override the defaults. */
	headers?: Record<string, string>;
}

export interface CrmDeliveryResult {
	status: number;
	headers: Record<string, string>;
	/** Parsed JSON when possible, else the raw text; null when empty. */
	body: unknown;
}

export interface Simulator {
	/** Base URL without trailing slash, e.g. http://127.0.0.1:PORT. */
	readonly url: string;
	readonly port: number;
	/** Live options; changing a field takes effect on the next request. */
	readonly options: Required<SimulatorOptions>;
	readonly counters: SimulatorCounters;
	readonly requests: LoggedRequest[];
	/** Accepted sends; reading it settles messages that are due. */
	readonly messages: SimulatedMessage[];
	readonly signingSecret: string;
	/** Invalidates every issued token; returns how many there were. */
	expireAllTokens(): number;
	/** The next `times` (default 1) authenticated requests to method + path get `response` instead of the service's answer. */
	injectFault(fault: {
		method: string;
		path: string;
		/** Required unless resetConnection, or delayMs with afterHandling (then the service's answer is delayed). */
		response?: { status: number; headers?: Record<string, string>; body?: unknown };
		times?: number;
		/** The service handles the request first (a send queues its message), then the fault answers. */
		afterHandling?: boolean;
		/** Close the connection without an answer. */
		resetConnection?: boolean;
		/** Answer this many milliseconds later. */
		delayMs?: number;
	}): void;
	/** Zeroes the counters and clears the requests log; keeps tokens, messages and rate-limit windows. */
	resetCounters(): void;
	/** Settles every PROCESSING message now; returns how many. */
	settleMessages(): number;
	/** Plays the service calling a CRM endpoint: POSTs the body signed in X-Service-Signature. */
	deliverCrm(delivery: CrmDelivery): Promise<CrmDeliveryResult>;
	stop(): Promise<void>;
}

export const DEFAULT_SIGNING_SECRET: string;
export const DEFAULT_CLIENTS: SimulatorClient[];

export function startSimulator(options?: SimulatorOptions): Promise<Simulator>;

/** Lowercase hex HMAC-SHA256 of the body keyed with the hex-decoded secret (spec 5, interface C). */
export function signBody(secretHex: string, body: string | Buffer): string;

/** Plays the service calling a CRM endpoint, signed with `secret` (or sent with `signature` as given). */
export function deliverSigned(delivery: CrmDelivery): Promise<CrmDeliveryResult>;
