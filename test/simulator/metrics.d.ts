export const MEDIUM_IDS: string[];

/** Path -> parameter name -> 'required' | 'optional' (spec 4.5 matrix). */
export const METRIC_ENDPOINTS: Record<string, Record<string, 'required' | 'optional'>>;

export function evaluateMetric(
	path: string,
	query: URLSearchParams,
	nowMs: number,
	requestPath?: string,
): { status: number; body: unknown };

/** Epoch milliseconds of an ISO-8601 date-time (offset optional, none = UTC), or undefined. */
export function parseIsoDateTime(value: string): number | undefined;
