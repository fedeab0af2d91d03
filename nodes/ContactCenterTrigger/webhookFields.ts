import {
	fromFunction,
	webhookDescriptionFields,
	type INodeParameters,
	type IWebhookDescription,
	type NodeParameterValueType,
} from 'n8n-workflow';

type FieldFunction = (parameters: INodeParameters) => NodeParameterValueType | undefined;

/**
 * Webhook description fields computed from the node's parameters, as n8n's own Webhook node
 * declares them: an expression template for the editor plus a native resolver that n8n's backend
 * runs without the expression engine when the parameters are static. On an n8n whose
 * n8n-workflow predates these helpers only the templates are given; n8n then
 * evaluates them, with the same result.
 *
 * Each function must be self-contained: its source becomes the template.
 */
export function computedWebhookFields<K extends string>(
	fields: Record<K, FieldFunction>,
): Partial<IWebhookDescription> {
	if (typeof webhookDescriptionFields === 'function' && typeof fromFunction === 'function') {
		const declared = {} as Record<K, ReturnType<typeof fromFunction>>;
		for (const name of Object.keys(fields) as K[]) declared[name] = fromFunction(fields[name]);
		return webhookDescriptionFields(declared) as Partial<IWebhookDescription>;
	}
	const templates: Record<string, string> = {};
	for (const name of Object.keys(fields) as K[]) {
		templates[name] = `={{(${String(fields[name])})($parameter)}}`;
	}
	return templates as Partial<IWebhookDescription>;
}
