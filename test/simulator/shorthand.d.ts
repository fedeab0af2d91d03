import type { ParsedTemplate } from './index';

export const TEMPLATE_SHORTHAND_PREFIX: '&((';

/** Parses the WhatsApp template shorthand (spec 2.2) strictly; throws an Error saying what is malformed. */
export function parseTemplateShorthand(text: string): ParsedTemplate;
