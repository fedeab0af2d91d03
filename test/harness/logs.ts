import * as n8nServices from './n8n-services';

type Level = 'error' | 'warn' | 'info' | 'debug';
export interface LogLine {
	level: Level;
	message: string;
	meta?: unknown;
}

const { n8nLogger } = n8nServices as unknown as {
	n8nLogger: () => { log: (level: Level, message: string, meta?: unknown) => void };
};

/**
 * Collects what nodes log through n8n's logger (`this.logger`, in every execution context) at
 * the levels it logs (info and above, as n8n by default) from now until `restore()` (or
 * jest.restoreAllMocks()), instead of printing them.
 */
export function captureLogs(): {
	lines: LogLine[];
	at: (level: Level) => string[];
	restore: () => void;
} {
	// n8n's Logger makes the levels below its own no-ops; the others all go through its log().
	const spy = jest
		.spyOn(n8nLogger(), 'log')
		.mockImplementation((level: Level, message: string, meta?: unknown) => {
			lines.push({ level, message, meta });
		});
	const lines: LogLine[] = [];
	return {
		lines,
		at: (level) => lines.filter((line) => line.level === level).map((line) => line.message),
		restore: () => spy.mockRestore(),
	};
}
