/**
 * The words the nodes panel test types (editor/nodesPanel.ts), in a module of their own so that
 * the unit tests check the codex against the same list (test/unit/discoverability.test.ts).
 */
/**
 * Every operation and endpoint, by the words an ops user types for it (the node's codex aliases
 * carry them; docs/nodes-panel-search.md).
 */
export const WORDS = [
	// the package, by what people call it
	'contact center',
	'call center',
	'customer service',
	'customer support',
	'support',
	'helpdesk',
	'omnichannel',
	// Send
	'sms',
	'send message',
	'send sms',
	'sms message',
	'bulk sms',
	'mass sms',
	'campaign',
	'text message',
	'send text',
	'whatsapp',
	'send whatsapp',
	'whatsapp template',
	'template message',
	'proactive message',
	'outbound message',
	'messaging',
	// Get Status, Get Failed Messages, Get Delivery Report
	'delivery status',
	'delivery report',
	'delivery receipt',
	'message status',
	'sms status',
	'get status',
	'status',
	'failed messages',
	'failed message',
	'failed',
	'delivery failed',
	'undelivered',
	// Get Metric, Get Metric Snapshot
	'metric',
	'metrics',
	'real-time',
	'snapshot',
	'get snapshot',
	'dashboard',
	'statistics',
	'stats',
	'analytics',
	'report',
	'reports',
	'kpi',
	'queue',
	'agents',
	'agent availability',
	'response time',
	'handle time',
	'wait time',
	// Respond to Lookup and the trigger's endpoints
	'crm',
	'lookup',
	'crm lookup',
	'customer lookup',
	'contact lookup',
	'caller lookup',
	'respond to lookup',
	'webhook',
	'callback',
	'write back',
	'writeback',
	'conversation',
	'notification',
	'notifications',
];

/**
 * n8n's own nodes that "agent" finds ahead of any alias: Message an Agent and AI Agent by their
 * alias or name plus popularity, Magento 2 by its name (x1.3) plus popularity
 * (docs/nodes-panel-search.md).
 */
export const N8N_NODES_MATCHING_AGENT = ['Message an Agent', 'AI Agent', 'Magento 2'];

/** Words for what the package does that must find it at all: campaigns, SLAs, conversations. */
export const FOUND_WORDS = ['broadcast', 'reminder', 'sla', 'transcript'];
