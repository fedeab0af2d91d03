// Transitional: Send's calls move to ../once when its split lands.
export { record as durableRecord } from '../once/record';
export { RECORD_CREDENTIAL, RECORD_CREDENTIAL_DISPLAY_NAME } from '../once/client';
