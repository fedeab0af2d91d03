import type { IDataObject } from 'n8n-workflow';

import { statusRow, type Received, type StatusOverview } from './statusOverview';

/** Get Delivery Report's Output: one row per contact (for a sheet) or one summary item (for a message). */
export type ReportOutput = 'perContact' | 'summary';

/**
 * The report's row of one send: Get Status's row with the reason right after the status (the
 * service's reason of a message that did not reach the contact; '' otherwise).
 */
export function reportRow(overview: StatusOverview, contact: string, reason: string): IDataObject {
	const { received, status, ...rest } = statusRow(overview, contact);
	return { received, status, reason, ...rest };
}

/**
 * The row of one of Send's items that has no correlationId because its message was not sent, or
 * may have been (Send with Continue On Fail): nothing to ask the service, the outcome says it.
 * Undefined for any other item, which is asked about as usual.
 */
export function rowOfUnsentItem(input: IDataObject | undefined, contact: string) {
	const outcome = input?.outcome;
	if (outcome !== 'not sent' && outcome !== 'may have been sent') return undefined;
	const received: Received = outcome === 'not sent' ? 'no' : 'unconfirmed';
	const reason = typeof input?.error === 'string' && input.error !== '' ? input.error : outcome;
	return { received, status: '', reason, contact, correlationId: '' };
}

/**
 * The value of `field` in an item as text: the field of that name, else a path in dot notation
 * (`customer.firstName`); '' when there is none or it is not a plain value.
 */
export function textAt(json: IDataObject | undefined, field: string): string {
	const path = field.trim();
	if (json === undefined || path === '') return '';
	const value =
		path in json
			? json[path]
			: path.split('.').reduce<unknown>((at, key) => (at as IDataObject | null)?.[key], json);
	return ['string', 'number', 'boolean'].includes(typeof value) ? String(value).trim() : '';
}

/** One contact in the summary: how it is named, whether it got the message, whether that was read. */
export interface SummaryEntry {
	name: string;
	received: Received;
	/** The status could not be read (Continue On Fail): counted unconfirmed, and named so. */
	notRead?: boolean;
}

const GROUPS = [
	{ received: 'yes', field: 'gotIt', label: 'Got it' },
	{ received: 'no', field: 'didNotGetIt', label: 'Did not get it' },
	{ received: 'unconfirmed', field: 'unconfirmed', label: 'Unconfirmed' },
] as const;

/**
 * The summary item: the number of contacts (`total`), then per group its count and its names as one
 * comma-separated text (empty when the group has none), and `text`, the three groups in three
 * lines, to drop into a Slack or e-mail message as it is.
 */
export function deliverySummary(entries: SummaryEntry[]): IDataObject {
	const summary: IDataObject = { total: entries.length };
	const lines: string[] = [];
	for (const { received, field, label } of GROUPS) {
		const names = entries
			.filter((entry) => entry.received === received)
			.map((entry) => (entry.notRead ? `${entry.name} (status not read)` : entry.name));
		summary[`${field}Count`] = names.length;
		summary[field] = names.join(', ');
		lines.push(`${label} (${names.length})${names.length ? `: ${names.join(', ')}` : ''}`);
	}
	summary.text = lines.join('\n');
	return summary;
}
