/**
 * The service sends WhatsApp templates through an inline shorthand in the text field (spec 2.2):
 * `&((namespace=[[ns]] template=[[name]] fallback=[[text]] language=[[en]] body_text=[[v1]]))&`
 */
export interface WhatsAppTemplate {
	namespace: string;
	templateName: string;
	language: string;
	/** Defaults to the template name, the value the service recommends. */
	fallback?: string;
	bodyVariables: string[];
}

export class TemplateFieldError extends Error {
	constructor(
		readonly field: string,
		message: string,
		readonly fix: string,
	) {
		super(message);
	}
}

/**
 * Sequences that would end a value, open another one, or end the whole shorthand early, so a value
 * holding one would be read by the service as a different structure than the fields it came from.
 */
const STRUCTURAL_SEQUENCES = ['[[', ']]', '&((', '))&'];

function checkValue(field: string, value: string): void {
	if (value.trim() === '') {
		throw new TemplateFieldError(
			field,
			`'${field}' is empty`,
			`Fill in '${field}', or remove it if it is a body variable the template does not have`,
		);
	}
	const sequence = STRUCTURAL_SEQUENCES.find((s) => value.includes(s));
	if (sequence !== undefined) {
		throw new TemplateFieldError(
			field,
			`'${field}' contains '${sequence}', which would break the template shorthand`,
			`Remove '${sequence}' from '${field}': the service would read it as template syntax and send other values than the ones you entered`,
		);
	}
	// A trailing ']' runs into the closing ']]' and the service would cut the value one character short.
	if (value.endsWith(']')) {
		throw new TemplateFieldError(
			field,
			`'${field}' ends with ']', which would break the template shorthand`,
			`Remove the trailing ']' from '${field}' or add a character after it`,
		);
	}
}

/** How the node titles the body variable at `index` (0-based): the template variable it fills. */
export const bodyVariableTitle = (index: number) => `Variable {{${index + 1}}}`;

/**
 * The same title as n8n's fixedCollection `itemTitle` expression, over `$collection.item.index`.
 * The braces are written as \u escapes: a literal `}}` would end n8n's expression early.
 */
export const BODY_VARIABLE_ITEM_TITLE =
	'={{ "Variable \\u007b\\u007b" + ($collection.item.index + 1) + "\\u007d\\u007d" }}';

/** Under each body variable, where n8n's layout gives the entries no title: which variable each fills. */
export const BODY_VARIABLE_HINT = 'The 1st entry fills {{1}}, the 2nd {{2}}, and so on';

export function buildTemplateShorthand(template: WhatsAppTemplate): string {
	const fallback =
		template.fallback === undefined || template.fallback === ''
			? template.templateName
			: template.fallback;
	checkValue('Namespace', template.namespace);
	checkValue('Template Name', template.templateName);
	checkValue('Fallback Text', fallback);
	checkValue('Language', template.language);
	template.bodyVariables.forEach((variable, index) =>
		checkValue(`Body Variables: ${bodyVariableTitle(index)}`, variable),
	);

	const parameters = [
		`namespace=[[${template.namespace}]]`,
		`template=[[${template.templateName}]]`,
		`fallback=[[${fallback}]]`,
		`language=[[${template.language}]]`,
		...template.bodyVariables.map((variable) => `body_text=[[${variable}]]`),
	];
	return `&((${parameters.join(' ')}))&`;
}
