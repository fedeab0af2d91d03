/* eslint-disable @typescript-eslint/no-explicit-any -- test code: the browser helpers are plain JS, untyped */
type Json = Record<string, any>;

/** The editor session's n8n, the owner's cookie for its REST API, and a page signed in as the owner. */
export interface SignedIn {
	instance: Json;
	cookie: string;
	page: Json;
}

/**
 * For the describe block it is called in: signs in on a page of its own, in a fresh browser
 * context of the editor session (nodes-panel.js startEditor), hands it to `take` before the
 * block's tests, and closes the context after them.
 */
export function signInForBlock(session: () => Json, take: (signedIn: SignedIn) => void): void {
	let page: Json | undefined;
	beforeAll(async () => {
		const editor = session();
		const signedInPage: Json = await editor.signedInPage();
		page = signedInPage;
		take({ instance: editor.instance, cookie: editor.cookie, page: signedInPage });
	}, 300_000);
	afterAll(async () => {
		await page?.browserContext().close();
	}, 120_000);
}
