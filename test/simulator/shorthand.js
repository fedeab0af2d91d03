'use strict';

/**
 * Strict parser of the WhatsApp template shorthand (spec 2.2):
 *   &((namespace=[[ns]] template=[[name]] fallback=[[text]] language=[[code]] body_text=[[v1]] ...))&
 *
 * Simulator choices (the spec does not say how the service parses it):
 * - The whole text must be the shorthand: it starts with `&((` and ends with `))&`, nothing around it.
 * - Parameters are `key=[[value]]`, separated by whitespace; whitespace right inside `&((` / `))&` is allowed.
 * - namespace, template, fallback and language appear exactly once each, in any order; body_text
 *   appears zero or more times and its order is the variable order.
 * - Values are non-empty and cannot contain `]]`. Unknown keys are rejected.
 */

const OPEN = '&((';
const CLOSE = '))&';
const MANDATORY_KEYS = ['namespace', 'template', 'fallback', 'language'];
const PARAMETER = /^([A-Za-z_]+)=\[\[([\s\S]*?)\]\]/;

function parseTemplateShorthand(text) {
	if (typeof text !== 'string' || !text.startsWith(OPEN)) {
		throw new Error(`must start with ${OPEN}`);
	}
	if (!text.endsWith(CLOSE) || text.length < OPEN.length + CLOSE.length) {
		throw new Error(`must end with ${CLOSE}`);
	}
	let rest = text.slice(OPEN.length, text.length - CLOSE.length).trim();
	const named = {};
	const bodyText = [];
	while (rest.length > 0) {
		const match = PARAMETER.exec(rest);
		if (!match) {
			throw new Error(`expected key=[[value]] at "${rest.slice(0, 30)}"`);
		}
		const [whole, key, value] = match;
		if (value.length === 0) {
			throw new Error(`empty value for ${key}`);
		}
		if (key === 'body_text') {
			bodyText.push(value);
		} else if (MANDATORY_KEYS.includes(key)) {
			if (key in named) {
				throw new Error(`duplicate parameter ${key}`);
			}
			named[key] = value;
		} else {
			throw new Error(`unknown parameter ${key}`);
		}
		rest = rest.slice(whole.length);
		if (rest.length > 0 && !/^\s/.test(rest)) {
			throw new Error(`parameters must be separated by whitespace after ${key}`);
		}
		rest = rest.trimStart();
	}
	const missing = MANDATORY_KEYS.filter((key) => !(key in named));
	if (missing.length > 0) {
		throw new Error(`missing ${missing.join(', ')}`);
	}
	return {
		namespace: named.namespace,
		template: named.template,
		fallback: named.fallback,
		language: named.language,
		bodyText,
	};
}

module.exports = { parseTemplateShorthand, TEMPLATE_SHORTHAND_PREFIX: OPEN };
