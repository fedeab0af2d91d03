import { VersionedNodeType, type IVersionedNodeType } from 'n8n-workflow';

import { triggerDescription } from './shared/description';
import { ContactCenterTriggerV1 } from './v1/ContactCenterTriggerV1.node';
import { ContactCenterTriggerV2 } from './v2/ContactCenterTriggerV2.node';

export class ContactCenterTrigger extends VersionedNodeType {
	constructor() {
		const nodeVersions: IVersionedNodeType['nodeVersions'] = {
			1: new ContactCenterTriggerV1(),
			2: new ContactCenterTriggerV2(),
		};
		super(nodeVersions, {
			displayName: 'Contact Center Trigger',
			name: 'contactCenterTrigger',
			icon: {
				light: 'file:../../icons/contactCenter.svg',
				dark: 'file:../../icons/contactCenter.dark.svg',
			},
			group: ['trigger'],
			description: triggerDescription,
			defaultVersion: 2,
		});
	}
}
