'use strict';
/**
 * Preloaded (`node --require`) into queue-mode workers by the queue-mode e2e suite: moves the
 * process's `Date.now()` forward by CC_E2E_CLOCK_OFFSET_MS, to play "the service's next retry comes
 * an hour later" without waiting an hour. Only `Date.now` moves; nothing else is changed.
 */
const offset = Number(process.env.CC_E2E_CLOCK_OFFSET_MS || 0);
if (Number.isFinite(offset) && offset !== 0) {
	const realNow = Date.now;
	Date.now = () => realNow() + offset;
}
