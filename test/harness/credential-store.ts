import { getAdditionalKeys } from 'n8n-core';
import {
	deepCopy,
	getCredentialOwnRequestAllowedDomains,
	ICredentials,
	ICredentialsHelper,
	isExpression,
	NodeHelpers,
	UnexpectedError,
	UserError,
	Workflow,
} from 'n8n-workflow';
import type {
	ICredentialDataDecryptedObject,
	ICredentialsEncrypted,
	ICredentialsExpressionResolveValues,
	ICredentialType,
	IExecuteData,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	INodeCredentials,
	INodeCredentialsDetails,
	INodeParameters,
	INodeProperties,
	INodeTypes,
	IRequestOptionsSimplified,
	IWorkflowDataProxyAdditionalKeys,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';

import { ContactCenterBaseUrlApi } from '../../credentials/ContactCenterBaseUrlApi.credentials';
import { ContactCenterOAuth2Api } from '../../credentials/ContactCenterOAuth2Api.credentials';
import { ContactCenterSigningSecretApi } from '../../credentials/ContactCenterSigningSecretApi.credentials';
import { oAuth2ApiCredentialType } from './oauth2-api-credential';

/** Hidden OAuth fields n8n always takes from the credential type, never from stored data. */
const OAUTH_PINNED_FIELDS = ['authUrl', 'accessTokenUrl', 'grantType', 'authentication'];

/** Stand-in node n8n's CredentialsHelper resolves credential expressions against outside a run. */
const CREDENTIAL_EXPRESSION_NODE: INode = {
	id: 'credential-expression-node',
	name: '',
	type: 'mock',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

const NO_NODE_TYPES: INodeTypes = {
	getByName: () => undefined as never,
	getByNameAndVersion: () => undefined as never,
	getKnownTypes: () => ({}),
};

interface StoredCredential {
	id: string;
	name: string;
	data: ICredentialDataDecryptedObject;
}

/** n8n's `Credentials` without encryption: `data` is the plain JSON of the stored fields. */
class PlainCredentials extends ICredentials {
	async getData(): Promise<ICredentialDataDecryptedObject> {
		return JSON.parse(this.data ?? '{}') as ICredentialDataDecryptedObject;
	}

	getDataToSave(): ICredentialsEncrypted {
		return { id: this.id, name: this.name, type: this.type, data: this.data };
	}

	async setData(data: ICredentialDataDecryptedObject): Promise<void> {
		this.data = JSON.stringify(data);
	}

	async updateData(
		toUpdate: ICredentialDataDecryptedObject,
		toDelete: string[] = [],
	): Promise<void> {
		const data = { ...(await this.getData()), ...toUpdate };
		for (const key of toDelete) delete data[key];
		await this.setData(data);
	}
}

export interface CredentialStoreOptions {
	/**
	 * Credential types beyond the package's own and their `oAuth2Api` parent.
	 * A stored type without a class is served as-is: no defaults, no expressions, no `authenticate`.
	 */
	credentialTypes?: ICredentialType[];
}

/**
 * In-memory stand-in for n8n's CredentialsHelper (packages/cli/src/credentials-helper.ts): the
 * same defaults, expression resolution, `authenticate`/`preAuthentication` behaviour and
 * persistence of OAuth token data, with a Map instead of the database.
 */
let credentialCount = 0;

export class CredentialStore extends ICredentialsHelper {
	private readonly credentialsByType = new Map<string, StoredCredential>();

	private readonly credentialTypes = new Map<string, ICredentialType>();

	constructor(
		dataByType: Record<string, ICredentialDataDecryptedObject>,
		options: CredentialStoreOptions = {},
	) {
		super();
		const knownTypes = [
			oAuth2ApiCredentialType,
			new ContactCenterBaseUrlApi(),
			new ContactCenterOAuth2Api(),
			new ContactCenterSigningSecretApi(),
			...(options.credentialTypes ?? []),
		];
		for (const credentialType of knownTypes) {
			this.credentialTypes.set(credentialType.name, credentialType);
		}
		for (const [type, data] of Object.entries(dataByType)) {
			this.set(type, data);
		}
	}

	/** A copy of the stored (raw, pre-defaults) data of a credential type, e.g. its `oauthTokenData`. */
	get(type: string): ICredentialDataDecryptedObject | undefined {
		const stored = this.credentialsByType.get(type);
		return stored && deepCopy(stored.data);
	}

	/**
	 * Replaces the stored data of a credential type (adding it if new). Each store holds its own
	 * credentials, with ids of their own, as two credentials in n8n have.
	 */
	set(type: string, data: ICredentialDataDecryptedObject): void {
		this.credentialsByType.set(type, {
			id: this.credentialsByType.get(type)?.id ?? `${type}-credential-${++credentialCount}`,
			name: `${type} credential`,
			data: deepCopy(data),
		});
	}

	/** The `node.credentials` entry that points a node at every stored credential. */
	nodeCredentials(): INodeCredentials {
		const nodeCredentials: INodeCredentials = {};
		for (const [type, { id, name }] of this.credentialsByType) {
			nodeCredentials[type] = { id, name };
		}
		return nodeCredentials;
	}

	getParentTypes(typeName: string): string[] {
		const parents = this.credentialTypes.get(typeName)?.extends ?? [];
		return parents.flatMap((parent) => [parent, ...this.getParentTypes(parent)]);
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	getCredentialsProperties(type: string): INodeProperties[] {
		const credentialType = this.credentialTypes.get(type);
		if (credentialType === undefined) return [];

		if (credentialType.extends === undefined) {
			if (type === 'oAuth2Api') {
				return [
					...credentialType.properties,
					{ displayName: 'oauthTokenData', name: 'oauthTokenData', type: 'json', default: {} },
				];
			}
			return credentialType.properties;
		}

		const combinedProperties: INodeProperties[] = [];
		for (const parentType of credentialType.extends) {
			NodeHelpers.mergeNodeProperties(
				combinedProperties,
				this.getCredentialsProperties(parentType),
			);
		}
		NodeHelpers.mergeNodeProperties(combinedProperties, credentialType.properties);
		return combinedProperties;
	}

	async getCredentials(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentials> {
		const stored = this.findStored(nodeCredentials, type);
		return new PlainCredentials(
			{ id: stored.id, name: stored.name },
			type,
			JSON.stringify(stored.data),
		);
	}

	async getDecrypted(
		additionalData: IWorkflowExecuteAdditionalData,
		nodeCredentials: INodeCredentialsDetails,
		type: string,
		mode: WorkflowExecuteMode,
		executeData?: IExecuteData,
		raw?: boolean,
		expressionResolveValues?: ICredentialsExpressionResolveValues,
	): Promise<ICredentialDataDecryptedObject> {
		const storedData = deepCopy(this.findStored(nodeCredentials, type).data);
		if (raw === true || !this.credentialTypes.has(type)) return storedData;
		return this.applyDefaultsAndResolveExpressions(
			additionalData,
			storedData,
			type,
			mode,
			executeData,
			expressionResolveValues,
		);
	}

	async updateCredentials(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		const stored = this.findStored(nodeCredentials, type);
		stored.data = deepCopy(data);
	}

	async updateCredentialsOauthTokenData(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		const stored = this.findStored(nodeCredentials, type);
		stored.data = { ...stored.data, oauthTokenData: deepCopy(data.oauthTokenData) };
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const authenticate = this.credentialTypes.get(typeName)?.authenticate;
		if (typeof authenticate === 'function') {
			return await authenticate(credentials, requestOptions as IHttpRequestOptions);
		}
		if (authenticate?.type === 'generic') {
			if (!workflow || !node) {
				throw new UnexpectedError(
					'Workflow and node are required for declarative credential authentication',
				);
			}
			const target = requestOptions as unknown as Record<string, Record<string, string>>;
			requestOptions.headers ??= {};
			for (const [optionName, entries] of Object.entries(authenticate.properties)) {
				target[optionName] ??= {};
				for (const [key, value] of Object.entries(entries as Record<string, string>)) {
					const resolve = (parameter: string) =>
						this.resolveAuthenticationValue(parameter, credentials, workflow, node);
					target[optionName][resolve(key)] = resolve(value);
				}
			}
		}
		return requestOptions as IHttpRequestOptions;
	}

	async preAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		node: INode,
		credentialsExpired: boolean,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const credentialType = this.credentialTypes.get(typeName);
		const expirableProperty = credentialType?.properties.find(
			(property) => property.type === 'hidden' && property.typeOptions?.expirable === true,
		);
		if (
			credentialType === undefined ||
			expirableProperty === undefined ||
			typeof credentialType.preAuthentication !== 'function' ||
			!(credentials[expirableProperty.name] === '' || credentialsExpired)
		) {
			return undefined;
		}

		const output = (await credentialType.preAuthentication.call(
			restrictToCredentialDomains(helpers, credentials),
			credentials,
		)) as ICredentialDataDecryptedObject;
		if (output[expirableProperty.name] === undefined || !node.credentials) return undefined;

		const nodeCredentials = node.credentials[typeName];
		const storedData = deepCopy(this.findStored(nodeCredentials, typeName).data);
		for (const [key, value] of Object.entries(output)) {
			// Like n8n: a field stored as an expression keeps its expression, not this run's value.
			if (key === expirableProperty.name || !isExpression(storedData[key])) {
				storedData[key] = value;
			}
		}
		await this.updateCredentials(nodeCredentials, typeName, storedData);
		return Object.assign(credentials, output);
	}

	async runPreAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const preAuthentication = this.credentialTypes.get(typeName)?.preAuthentication;
		if (typeof preAuthentication !== 'function') return undefined;
		return (await preAuthentication.call(
			restrictToCredentialDomains(helpers, credentials),
			credentials,
		)) as ICredentialDataDecryptedObject;
	}

	private findStored(nodeCredentials: INodeCredentialsDetails, type: string): StoredCredential {
		const stored = this.credentialsByType.get(type);
		if (stored === undefined || (nodeCredentials.id !== null && nodeCredentials.id !== stored.id)) {
			throw new UserError(
				`Credential with ID "${nodeCredentials.id}" does not exist for type "${type}".`,
			);
		}
		return stored;
	}

	private applyDefaultsAndResolveExpressions(
		additionalData: IWorkflowExecuteAdditionalData,
		storedData: ICredentialDataDecryptedObject,
		type: string,
		mode: WorkflowExecuteMode,
		executeData?: IExecuteData,
		expressionResolveValues?: ICredentialsExpressionResolveValues,
	): ICredentialDataDecryptedObject {
		const properties = this.getCredentialsProperties(type);
		const dataWithoutPinnedFields = { ...storedData };
		for (const field of OAUTH_PINNED_FIELDS) {
			if (properties.some((property) => property.name === field && property.type === 'hidden')) {
				delete dataWithoutPinnedFields[field];
			}
		}

		const withDefaults = NodeHelpers.getNodeParameters(
			properties,
			dataWithoutPinnedFields as INodeParameters,
			true,
			false,
			null,
			null,
		) as ICredentialDataDecryptedObject;
		// oauthTokenData is no declared property of the child type, so getNodeParameters drops it.
		if (storedData.oauthTokenData !== undefined) {
			withDefaults.oauthTokenData = storedData.oauthTokenData;
		}

		const additionalKeys = getAdditionalKeys(additionalData, mode, null, { isCredential: true });
		if (expressionResolveValues) {
			return expressionResolveValues.workflow.expression.getParameterValue(
				withDefaults as INodeParameters,
				expressionResolveValues.runExecutionData,
				expressionResolveValues.runIndex,
				expressionResolveValues.itemIndex,
				expressionResolveValues.node.name,
				expressionResolveValues.connectionInputData,
				mode,
				additionalKeys,
				executeData,
				false,
				withDefaults,
			) as ICredentialDataDecryptedObject;
		}
		const workflow = new Workflow({
			nodes: [CREDENTIAL_EXPRESSION_NODE],
			connections: {},
			active: false,
			nodeTypes: NO_NODE_TYPES,
		});
		return workflow.expression.getComplexParameterValue(
			CREDENTIAL_EXPRESSION_NODE,
			withDefaults as INodeParameters,
			mode,
			additionalKeys,
			undefined,
			undefined,
			withDefaults,
		) as ICredentialDataDecryptedObject;
	}

	private resolveAuthenticationValue(
		parameterValue: string,
		credentials: ICredentialDataDecryptedObject,
		workflow: Workflow,
		node: INode,
	): string {
		if (!isExpression(parameterValue)) return parameterValue;
		const additionalKeys = { $credentials: credentials } as IWorkflowDataProxyAdditionalKeys;
		const resolved = workflow.expression.getSimpleParameterValue(
			node,
			parameterValue,
			'internal',
			additionalKeys,
			undefined,
			'',
		);
		return resolved ? String(resolved) : '';
	}
}

/** As n8n does, requests a credential's preAuthentication issues stay within its allowed domains. */
function restrictToCredentialDomains(
	helpers: IHttpRequestHelper,
	credentials: ICredentialDataDecryptedObject,
): IHttpRequestHelper {
	return {
		helpers: {
			httpRequest: async (requestOptions: IHttpRequestOptions) => {
				const allowedDomains = getCredentialOwnRequestAllowedDomains(credentials);
				if (allowedDomains === undefined) return await helpers.helpers.httpRequest(requestOptions);
				if (requestOptions.allowedDomains !== undefined) {
					throw new UserError(
						'This credential restricts requests to specific domains, which cannot be combined with the domains its authentication step asks for.',
					);
				}
				return await helpers.helpers.httpRequest({ ...requestOptions, allowedDomains });
			},
		},
	};
}

/**
 * Creates an in-memory credential store keyed by credential type name, e.g.
 * `createCredentialStore({ contactCenterOAuth2Api: { baseUrl, clientId, clientSecret } })`.
 * Share one store across runs so OAuth token data written by n8n-core is reused.
 */
export function createCredentialStore(
	dataByType: Record<string, ICredentialDataDecryptedObject>,
	options?: CredentialStoreOptions,
): CredentialStore {
	return new CredentialStore(dataByType, options);
}
