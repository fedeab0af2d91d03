/** The wait a Retry-After header asks for (seconds or an HTTP date), in ms; undefined without one. */
export function retryAfterMs(headers: Record<string, unknown> | undefined, now = Date.now()) {
	const entry = Object.entries(headers ?? {}).find(
		([name]) => name.toLowerCase() === 'retry-after',
	);
	if (!entry) return undefined;
	const value = String(entry[1]).trim();
	if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
	const date = Date.parse(value);
	return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
