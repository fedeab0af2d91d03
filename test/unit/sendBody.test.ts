import {
	checkAddress,
	checkedText,
	metadataOf,
	SendFieldError,
	type MessageAddress,
} from '../../nodes/ContactCenter/actions/proactiveMessage/send/body';

const address: MessageAddress = {
	medium: 'TWILIO',
	channel: 'Appointments SMS',
	contact: '+31612345678',
	messageType: 'text',
};

function refusal(check: () => unknown): SendFieldError {
	try {
		check();
	} catch (error) {
		expect(error).toBeInstanceOf(SendFieldError);
		return error as SendFieldError;
	}
	throw new Error('expected a SendFieldError');
}

describe('checkAddress', () => {
	it('lets a complete address through', () => {
		expect(() => checkAddress(address)).not.toThrow();
		expect(() => checkAddress({ ...address, contact: 'contact-ref-42' })).not.toThrow();
	});

	it('refuses an unknown medium, naming the ones there are', () => {
		const error = refusal(() => checkAddress({ ...address, medium: 'SMS' }));
		expect(error.message).toBe("'Medium' has an unknown value 'SMS'");
		expect(error.fix).toBe('Use one of MESSAGEBIRD, TWILIO, WHATSAPP');
	});

	it('refuses an empty channel and an empty contact, naming the field', () => {
		expect(refusal(() => checkAddress({ ...address, channel: '' })).message).toBe(
			"'Channel' is empty",
		);
		expect(refusal(() => checkAddress({ ...address, contact: '' })).message).toBe(
			"'Contact' is empty",
		);
	});

	it('refuses a phone number without the leading +', () => {
		const error = refusal(() => checkAddress({ ...address, contact: '0612 345 678' }));
		expect(error.message).toContain('looks like a phone number without the leading +');
		expect(error.fix).toContain('+31612345678');
	});
});

describe('checkedText', () => {
	it('keeps the text as entered and refuses one of only spaces', () => {
		expect(checkedText(' Hello ')).toBe(' Hello ');
		expect(refusal(() => checkedText('  ')).message).toBe("'Text' is empty");
	});
});

describe('metadataOf', () => {
	it('gives no metadata for no entries, and every value as text', () => {
		expect(metadataOf([])).toBeUndefined();
		expect(metadataOf([{ key: ' orderId ', value: 42 }, { key: 'note' }])).toEqual({
			orderId: '42',
			note: '',
		});
	});

	it('refuses an entry without a key and a key given twice', () => {
		expect(refusal(() => metadataOf([{ key: 'a' }, { key: ' ' }])).message).toBe(
			"'Metadata' entry 2 has no key",
		);
		expect(refusal(() => metadataOf([{ key: 'a' }, { key: 'a ' }])).message).toBe(
			"'Metadata' has the key 'a' twice",
		);
	});
});
