export { RECORD_KEY_STEPS } from './apiKey';
export * from './client';
export { testRecordCredential } from './credentialTest';
export { DEFAULT_RECORD_TIMING } from './failure';
export { warnIfStorageNearlyFull } from './storage';
export { contextWithoutExecution } from './withoutExecution';
