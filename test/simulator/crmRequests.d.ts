export function lookupRequest(email?: string): Record<string, string>;

export function writeBackRequest(options?: {
	idempotencyKey?: string;
	conversationId?: string;
	type?: string;
	extra?: Record<string, unknown>;
}): { type: string; version: number; idempotencyKey: string; data: Record<string, unknown> };

export function notificationRequest(options?: { timestamp?: string; messages?: string[] }): {
	timestamp: string;
	version: number;
	eventType: string;
	messages: string[];
};
