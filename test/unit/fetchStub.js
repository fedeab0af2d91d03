'use strict';
/**
 * Replaces Node's global fetch for one test (plain JS: n8n's lint rules keep globalThis out of .ts
 * files). `answer(url, init)` returns `{ status, body }` or throws; resolves like fetch would.
 * Returns the calls made and `restore()`.
 */
function stubFetch(answer) {
	const original = globalThis.fetch;
	const calls = [];
	globalThis.fetch = async (url, init = {}) => {
		calls.push({ url: String(url), headers: init.headers ?? {} });
		const { status, body } = await answer(new URL(String(url)), init);
		const text = typeof body === 'string' ? body : JSON.stringify(body);
		return { status, text: async () => text };
	};
	return {
		calls,
		restore: () => {
			globalThis.fetch = original;
		},
	};
}

module.exports = { stubFetch };
