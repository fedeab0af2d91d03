'use strict';
/**
 * Finds every place in nodes/ that catches an error (a `catch` block, a `.catch(handler)`, the
 * rejection handler of a `.then(onFulfilled, onRejected)`) and says what each does with it, for
 * noDroppedErrors.test.ts (plain JS: it uses Node's file system, which the community-node lint
 * rules keep out of .ts files). Parsed with TypeScript's own parser, so that strings, comments and
 * nesting cannot fool it.
 */
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const ROOT = path.resolve(__dirname, '../..');

/** The marker of a handler that drops its error on purpose: `// Safe to ignore: <why>`. */
const IGNORE_MARKER = /safe to ignore:\s*\S/i;
const LOGGER_CALL = /\blogger\.(error|warn|info|debug|verbose)\s*\(/;

function sourceFilesUnder(directory) {
	const files = [];
	for (const entry of fs.readdirSync(path.join(ROOT, directory), { withFileTypes: true })) {
		const relative = path.join(directory, entry.name);
		if (entry.isDirectory()) files.push(...sourceFilesUnder(relative));
		else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) files.push(relative);
	}
	return files.sort();
}

const isFunction = (node) =>
	node !== undefined && (ts.isArrowFunction(node) || ts.isFunctionExpression(node));

/** Whether `node`'s subtree holds an identifier `name` (the caught error, used). */
function uses(node, name) {
	if (name === undefined) return false;
	let found = false;
	const visit = (child) => {
		if (found) return;
		if (ts.isIdentifier(child) && child.text === name) found = true;
		else ts.forEachChild(child, visit);
	};
	visit(node);
	return found;
}

function hasThrow(node) {
	let found = false;
	const visit = (child) => {
		if (found) return;
		if (ts.isThrowStatement(child)) found = true;
		else ts.forEachChild(child, visit);
	};
	visit(node);
	return found;
}

/** The comment lines right above `line` (0-based), up to the first line that is not a comment. */
function commentLinesAbove(lines, line) {
	const above = [];
	for (let i = line - 1; i >= 0; i--) {
		const text = lines[i].trim();
		if (!/^(\/\/|\/\*|\*)/.test(text)) break;
		above.unshift(text);
	}
	return above.join('\n');
}

/**
 * Every handler of `file`: where it is (file:line), its source text, and what it does with its
 * error: `logs`, `throws`, `passesOn` (uses the caught error: returns it, keeps it or puts it in a
 * row) or `annotated` (a "Safe to ignore:" comment in it, on its line or right above).
 */
function handlersOf(file, text = fs.readFileSync(path.join(ROOT, file), 'utf8')) {
	const lines = text.split('\n');
	const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
	const handlers = [];
	const describe = (node, body, errorName) => {
		const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
		const bodyText = body.getText(source);
		const nearby = `${lines[line]}\n${commentLinesAbove(lines, line)}`;
		handlers.push({
			where: `${file}:${line + 1}`,
			text: lines[line].trim(),
			logs: LOGGER_CALL.test(bodyText),
			throws: hasThrow(body),
			passesOn: uses(body, errorName),
			annotated: IGNORE_MARKER.test(bodyText) || IGNORE_MARKER.test(nearby),
		});
	};
	const visit = (node) => {
		if (ts.isCatchClause(node)) {
			const name = node.variableDeclaration?.name;
			describe(node, node.block, name && ts.isIdentifier(name) ? name.text : undefined);
		} else if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
			const method = node.expression.name.text;
			const handler =
				method === 'catch' ? node.arguments[0] : method === 'then' ? node.arguments[1] : undefined;
			if (isFunction(handler)) {
				const first = handler.parameters[0]?.name;
				describe(handler, handler, first && ts.isIdentifier(first) ? first.text : undefined);
			}
		}
		ts.forEachChild(node, visit);
	};
	visit(source);
	return handlers;
}

/** Every handler under `directory` (relative to the repository). */
function errorHandlersUnder(directory) {
	return sourceFilesUnder(directory).flatMap((file) => handlersOf(file));
}

module.exports = { errorHandlersUnder, handlersOf };
