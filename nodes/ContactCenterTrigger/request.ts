/**
 * The parts of n8n's webhook request the trigger reads. n8n (packages/cli/src/middlewares/
 * body-parser.ts) keeps the body bytes as `rawBody` and offers `readRawBody()` to read them when
 * nothing has yet; a plain object with a Buffer `rawBody` is enough in tests.
 */
export interface RawBodyRequest {
	headers?: Record<string, unknown>;
	rawBody?: unknown;
	readRawBody?: () => Promise<void>;
}

/** The raw body bytes, reading them first when n8n has not; undefined when they cannot be had. */
export async function getRawBody(req: RawBodyRequest): Promise<Buffer | undefined> {
	if (!Buffer.isBuffer(req.rawBody) && typeof req.readRawBody === 'function') {
		await req.readRawBody();
	}
	if (Buffer.isBuffer(req.rawBody)) return req.rawBody;
	if (typeof req.rawBody === 'string') return Buffer.from(req.rawBody, 'utf8');
	return undefined;
}

/** The parts of n8n's (express) response object the trigger writes to. */
export interface MinimalResponse {
	status(statusCode: number): MinimalResponse;
	json(body: unknown): unknown;
}

/** Answers the request directly (used for 400/401, which must start no execution). */
export function writeJsonResponse(res: MinimalResponse, statusCode: number, body: object): void {
	res.status(statusCode).json(body);
}
